/**
 * Leaves a shared test cluster as a suite found it: `npm run test:real` runs every file against one
 * control plane, so the requests, decisions and Jobs a suite made (and the nodes and pods it
 * invented) must not reach the next suite's control plane, scheduler or slots.
 */
import {
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
} from '@kubernetes/client-node';

export async function cleanKubemaint(
  admin: KubeConfig,
  made: { nodes?: readonly string[]; pods?: readonly string[] } = {},
): Promise<void> {
  const custom = admin.makeApiClient(CustomObjectsApi);
  const at = { group: 'kubemaint.io', version: 'v1alpha1', namespace: 'kubemaint' };
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
    // The lock slots: a slot held for a node a suite invented would stall the next suite's roll.
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
  ]);
}
