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

/** The policies (and their bindings, of the same names) in infra/k8s/admission-*.yaml. */
const KUBEMAINT_POLICIES = [
  'kubemaint-agent-own-node-only',
  'kubemaint-serve-dry-run-evictions-only',
  'kubemaint-control-plane-node-writes',
  'kubemaint-decisions-name-their-author',
  'kubemaint-requests-name-their-requester',
  'kubemaint-request-status-by-control-plane',
  'kubemaint-jobs-of-the-executors-shape',
  'kubemaint-hook-jobs',
  'kubemaint-control-plane-configmaps',
];

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
