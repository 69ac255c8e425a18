/**
 * kubemaint's own kinds in the embedded cluster: the CustomResourceDefinitions of infra/k8s/crds.yaml,
 * created through the API as `kubectl apply -k infra/k8s` would on a real cluster. Only for the sim
 * (the demo, tests): a real cluster gets them from its installer, and serve never installs CRDs
 * (that needs cluster-admin, which serve does not have).
 */
import { readFileSync } from 'node:fs';
import {
  ApiextensionsV1Api,
  RbacAuthorizationV1Api,
  loadAllYaml,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { isKubeError } from '../adapters/kube/errors.js';
import { withRetry, DEFAULT_RETRY } from '../adapters/kube/retry.js';

export const CRDS_MANIFEST = new URL('../../infra/k8s/crds.yaml', import.meta.url);

/**
 * Read through client-node's own YAML loader: its typed clients serialize by their camelCase field
 * names, so a plain parse would silently drop `x-kubernetes-validations` and
 * `x-kubernetes-preserve-unknown-fields` (the spec's immutability and the status's free-form parts).
 */
export function kubemaintCrds(): V1CustomResourceDefinition[] {
  return (
    loadAllYaml(readFileSync(CRDS_MANIFEST, 'utf8')) as (V1CustomResourceDefinition | null)[]
  ).filter((crd): crd is V1CustomResourceDefinition => crd?.kind === 'CustomResourceDefinition');
}

export async function installKubemaintKinds(kubeConfig: KubeConfig): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  for (const body of kubemaintCrds()) {
    try {
      await withRetry(
        `create CRD ${body.metadata?.name ?? ''}`,
        () => api.createCustomResourceDefinition({ body }),
        DEFAULT_RETRY,
      );
    } catch (error) {
      if (!isKubeError(error, 'already-exists')) throw error;
    }
  }
}

/**
 * The embedded demo's people: everyone the sim authenticates (the CLI as the sim's administrator,
 * `--as alice`) gets `kubemaint:person` (infra/k8s/rbac-people.yaml) in kubemaint's namespace, as an
 * installer binds it to its people on a real cluster, and read access to the fleet (what "whatever
 * view access they already have" is on a real cluster), so the demo CLI may look at nodes and record
 * requests and decisions in their name. Whether a decision counts stays the config's approvers' to say.
 */
export async function bindDemoPeople(
  kubeConfig: KubeConfig,
  namespace = 'kubemaint',
): Promise<void> {
  const api = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const group = 'rbac.authorization.k8s.io';
  const everyone = [{ apiGroup: group, kind: 'Group', name: 'system:authenticated' }];
  const metadata = (name: string) => ({
    name,
    labels: { 'app.kubernetes.io/part-of': 'kubemaint' },
  });
  const read = ['get', 'list', 'watch'];
  const creates: [string, () => Promise<unknown>][] = [
    [
      'the demo viewer role',
      () =>
        api.createClusterRole({
          body: {
            metadata: metadata('kubemaint:demo-viewer'),
            rules: [
              { apiGroups: [''], resources: ['nodes', 'pods', 'events'], verbs: read },
              { apiGroups: ['batch'], resources: ['jobs'], verbs: read },
              { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: read },
            ],
          },
        }),
    ],
    [
      'the demo viewer binding',
      () =>
        api.createClusterRoleBinding({
          body: {
            metadata: metadata('kubemaint:demo-viewer'),
            roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'kubemaint:demo-viewer' },
            subjects: everyone,
          },
        }),
    ],
    [
      'the demo people binding',
      () =>
        api.createNamespacedRoleBinding({
          namespace,
          body: {
            metadata: { ...metadata('kubemaint-demo-people'), namespace },
            roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'kubemaint:person' },
            subjects: everyone,
          },
        }),
    ],
  ];
  for (const [what, create] of creates) {
    try {
      await withRetry(`create ${what}`, create, DEFAULT_RETRY);
    } catch (error) {
      if (!isKubeError(error, 'already-exists')) throw error;
    }
  }
}
