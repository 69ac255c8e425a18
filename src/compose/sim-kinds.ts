/**
 * kubemaint's own kinds in the embedded cluster: the CustomResourceDefinitions of infra/k8s/crds.yaml,
 * created through the API as `kubectl apply -k infra/k8s` would on a real cluster. Only for the sim
 * (the demo, tests): a real cluster gets them from its installer, and serve never installs CRDs
 * (that needs cluster-admin, which serve does not have).
 */
import { readFileSync } from 'node:fs';
import {
  ApiextensionsV1Api,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { isKubeError } from '../adapters/kube/errors.js';
import { withRetry, DEFAULT_RETRY } from '../adapters/kube/retry.js';

export const CRDS_MANIFEST = new URL('../../infra/k8s/crds.yaml', import.meta.url);

export function kubemaintCrds(): V1CustomResourceDefinition[] {
  return parseAllDocuments(readFileSync(CRDS_MANIFEST, 'utf8'))
    .map((doc) => doc.toJS() as V1CustomResourceDefinition | null)
    .filter((crd): crd is V1CustomResourceDefinition => crd?.kind === 'CustomResourceDefinition');
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
