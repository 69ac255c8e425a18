/**
 * kubemaint's own kinds in the embedded cluster: the CustomResourceDefinitions of infra/k8s/crds.yaml,
 * created through the API as `kubectl apply -k infra/k8s` would on a real cluster. Only for the sim
 * (the demo, tests): a real cluster gets them from its installer, and serve never installs CRDs
 * (that needs cluster-admin, which serve does not have).
 */
import { readFileSync } from 'node:fs';
import {
  ApiextensionsV1Api,
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
