/**
 * Leaves a shared test cluster as a suite found it: `npm run test:real` runs every file against one
 * control plane, so the requests, decisions and Jobs a suite made (and the nodes and pods it
 * invented) must not reach the next suite's control plane, scheduler or slots.
 */
import {
  AdmissionregistrationV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
} from '@kubernetes/client-node';
import { join, resolve } from 'node:path';
import { KUBEMAINT_MANIFESTS, manifests } from './apply-infra.js';

/**
 * The policies (and their bindings, of the same names) in infra/k8s/admission-*.yaml, read from the
 * files: a hand-kept list missed a policy added later, which then outlived its suite and made the
 * next suite's server-side apply conflict with the test client's field manager.
 */
const KUBEMAINT_POLICIES = manifests(
  join(resolve(import.meta.dirname, '../..'), 'infra', 'k8s'),
  KUBEMAINT_MANIFESTS.filter((file) => file.startsWith('admission-')),
)
  .filter((o) => o.kind === 'ValidatingAdmissionPolicy')
  .map((o) => o.metadata?.name ?? '');

export async function cleanKubemaint(
  admin: KubeConfig,
  made: { nodes?: readonly string[]; pods?: readonly string[] } = {},
): Promise<void> {
  const custom = admin.makeApiClient(CustomObjectsApi);
  const at = { group: 'kubemaint.io', version: 'v1beta1', namespace: 'kubemaint' };
  const core = admin.makeApiClient(CoreV1Api);
  const ignore = () => undefined;
  await Promise.all([
    custom
      .deleteCollectionNamespacedCustomObject({ ...at, plural: 'maintenancerequests' })
      .catch(ignore),
    custom
      .deleteCollectionNamespacedCustomObject({ ...at, plural: 'maintenanceapprovals' })
      .catch(ignore),
    admin
      .makeApiClient(BatchV1Api)
      .deleteCollectionNamespacedJob({ namespace: 'kubemaint', propagationPolicy: 'Background' })
      .catch(ignore),
    // The slots: a slot held for a node a suite invented would stall the next suite's roll.
    admin
      .makeApiClient(CoordinationV1Api)
      .deleteCollectionNamespacedLease({ namespace: 'kubemaint' })
      .catch(ignore),
    ...(made.pods ?? []).map((name) =>
      core
        .deleteNamespacedPod({ name, namespace: 'kubemaint', gracePeriodSeconds: 0 })
        .catch(ignore),
    ),
    ...(made.nodes ?? []).map((name) => core.deleteNode({ name }).catch(ignore)),
    // infra/k8s's admission policies judge every later suite's writes (the conformance cases install
    // their own copies under other names): a suite that installed them takes them away again.
    ...KUBEMAINT_POLICIES.flatMap((name) => {
      const api = admin.makeApiClient(AdmissionregistrationV1Api);
      return [
        api.deleteValidatingAdmissionPolicyBinding({ name }).catch(ignore),
        api.deleteValidatingAdmissionPolicy({ name }).catch(ignore),
      ];
    }),
  ]);
}
