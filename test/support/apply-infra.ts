/**
 * Installs kubemaint's cluster side from infra/k8s into a test cluster (sim or real), as `kubectl
 * apply` would: the CRDs, namespace, service accounts, RBAC and admission policies (not the agent
 * DaemonSet or the serve Deployment: tests run those parts themselves). Then waits until the
 * decision policy is enforced, which takes the real apiserver a moment (its policy informer).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ApiException,
  CustomObjectsApi,
  KubernetesObjectApi,
  loadAllYaml,
  type KubernetesObject,
} from '@kubernetes/client-node';

export const KUBEMAINT_MANIFESTS = [
  'crds.yaml',
  'namespace.yaml',
  'service-accounts.yaml',
  'rbac-serve.yaml',
  'rbac-executor.yaml',
  'rbac-agent.yaml',
  'rbac-people.yaml',
  'admission-policy.yaml',
  'admission-requests.yaml',
  'admission-hooks.yaml',
];

export function manifests(infra: string, files = KUBEMAINT_MANIFESTS): KubernetesObject[] {
  // client-node's loader, not a plain YAML parse: its serializer drops keys it does not know by
  // their camelCase names (x-kubernetes-validations would vanish from the CRDs).
  return files.flatMap((file) =>
    (loadAllYaml(readFileSync(join(infra, file), 'utf8')) as (KubernetesObject | null)[]).filter(
      (o): o is KubernetesObject => o !== null,
    ),
  );
}

/** Create, or replace what is there: what `kubectl apply` does for these objects. */
export async function apply(api: KubernetesObjectApi, object: KubernetesObject): Promise<void> {
  try {
    await api.create(object);
  } catch (error) {
    if (!(error instanceof ApiException) || error.code !== 409) throw error;
    // A pod's spec cannot change once created: the one there (a run before, on a kept cluster) does.
    if (object.kind === 'Pod') return;
    // Read and replace until no one wrote between the two: the real apiserver writes a
    // ValidatingAdmissionPolicy's status (its type check) a moment after each change.
    for (let attempt = 1; ; attempt++) {
      const current = await api.read(object as never);
      try {
        await api.replace({
          ...object,
          metadata: { ...object.metadata, resourceVersion: current.metadata?.resourceVersion },
        });
        return;
      } catch (conflict) {
        if (!(conflict instanceof ApiException) || conflict.code !== 409 || attempt >= 5)
          throw conflict;
      }
    }
  }
}

export async function applyAll(admin: KubeConfig, objects: readonly object[]): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(admin);
  for (const object of objects) await apply(api, object);
}

/**
 * Apply infra/k8s and wait for its policies: `probe` is a kubeconfig that may create decisions (RBAC
 * must already let it, or its 403 would end the wait before the policy does) but is not the control
 * plane; the wait ends when naming someone else is refused.
 */
export async function applyKubemaint(
  admin: KubeConfig,
  infra: string,
  probe: KubeConfig,
): Promise<void> {
  await applyAll(admin, manifests(infra));
  const custom = probe.makeApiClient(CustomObjectsApi);
  // The apiserver enforces a new policy once its informers have it and its type check ran: seconds
  // on a quiet machine, longer right after thousands of Nodes were posted (the scale bench).
  const deadline = Date.now() + 120_000;
  let last: unknown;
  for (;;) {
    try {
      await custom.createNamespacedCustomObject({
        group: 'kubemaint.io',
        version: 'v1beta1',
        namespace: 'kubemaint',
        plural: 'maintenanceapprovals',
        body: {
          apiVersion: 'kubemaint.io/v1beta1',
          kind: 'MaintenanceApproval',
          metadata: { name: 'policy-probe', namespace: 'kubemaint' },
          spec: { request: 'r-000000', approver: 'someone-else', decision: 'approve' },
        },
        dryRun: 'All',
      });
      last = 'the dry run was admitted';
    } catch (error) {
      if (error instanceof ApiException && error.code === 403) return;
      last = error;
    }
    if (Date.now() > deadline)
      assert.fail(
        `the admission policies of infra/k8s were not enforced within 120 s (last: ${last instanceof Error ? last.message : String(last)})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
