/**
 * The storage-version migration's port over the API (app/control/storage-migration.ts), as
 * kube-storage-version-migrator does it: read the CRD's `status.storedVersions`; rewrite every
 * object of the kind with a write that changes nothing (the apiserver re-encodes it at today's
 * storage version, since the stored bytes differ); then trim `storedVersions` through the CRD's
 * status subresource. RBAC grants serve `get` and `customresourcedefinitions/status` `patch` on
 * kubemaint's two CRDs only (rbac-serve.yaml).
 */
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import type { StorageVersionPort } from '../../app/control/storage-migration.js';
import type { StoredKind } from '../../core/storage-version.js';
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { customObjectsPage, listAll } from './paginate.js';
import { DECISIONS, GROUP, REQUESTS, VERSION } from './request-codec.js';
import { withRetry } from './retry.js';
import { MERGE_PATCH } from './nodes.js';

interface Listed {
  metadata?: { name?: string; resourceVersion?: string };
}

export function kubeStorageVersions(client: KubeClient, namespace: string): StorageVersionPort {
  const crds = client.config.makeApiClient(ApiextensionsV1Api);
  return {
    kinds: [REQUESTS, DECISIONS],
    version: VERSION,
    async read(plural): Promise<StoredKind> {
      const name = `${plural}.${GROUP}`;
      const crd = await withRetry(
        `read CRD ${name}`,
        () => crds.readCustomResourceDefinition({ name }),
        client.retry,
      );
      return {
        crd: name,
        storage: crd.spec.versions.find((v) => v.storage)?.name,
        storedVersions: crd.status?.storedVersions ?? [],
      };
    },
    async rewrite(plural) {
      const objects = await listAll<Listed>(
        `list ${plural}`,
        async (cont, limit) =>
          customObjectsPage<Listed>(
            await client.custom.listNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              namespace,
              plural,
              limit,
              ...(cont ? { _continue: cont } : {}),
            }),
          ),
        client.retry,
      );
      let rewritten = 0;
      for (const { metadata } of objects) {
        const name = metadata?.name ?? '';
        try {
          // The listed resourceVersion as a precondition: a conflict means someone wrote the
          // object since, which stored it at the new version already.
          await withRetry(
            `rewrite ${plural}/${name}`,
            () =>
              client.custom.patchNamespacedCustomObject(
                {
                  group: GROUP,
                  version: VERSION,
                  namespace,
                  plural,
                  name,
                  body: { metadata: { resourceVersion: metadata?.resourceVersion } },
                },
                MERGE_PATCH,
              ),
            client.retry,
          );
          rewritten += 1;
        } catch (error) {
          if (!isKubeError(error, 'conflict') && !isKubeError(error, 'not-found')) throw error;
        }
      }
      return { listed: objects.length, rewritten };
    },
    async trim(plural, storedVersions) {
      const name = `${plural}.${GROUP}`;
      await withRetry(
        `trim storedVersions of ${name}`,
        () =>
          crds.patchCustomResourceDefinitionStatus(
            { name, body: { status: { storedVersions } } },
            MERGE_PATCH,
          ),
        client.retry,
      );
    },
  };
}
