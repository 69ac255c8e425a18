/**
 * One ConfigMap of the kubemaint namespace that the control plane owns whole (the agent's settings,
 * the observed durations): read it, and change it by a conditional write that re-reads on a 409, so
 * two control planes writing at once both land instead of one losing the other's change.
 */
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { withRetry } from './retry.js';

export interface OwnedConfigMap {
  /** The data, or undefined when the ConfigMap does not exist yet. */
  read(): Promise<Record<string, string> | undefined>;
  /** Writes `change(current data)` whole; retried on a conflict with the data read again. */
  update(
    change: (data: Record<string, string> | undefined) => Record<string, string>,
  ): Promise<void>;
}

const ATTEMPTS = 5;

export function ownedConfigMap(
  client: KubeClient,
  namespace: string,
  name: string,
  labels: Record<string, string>,
): OwnedConfigMap {
  async function current() {
    try {
      return await withRetry(
        `read configmap ${namespace}/${name}`,
        () => client.core.readNamespacedConfigMap({ name, namespace }),
        client.retry,
      );
    } catch (error) {
      if (isKubeError(error, 'not-found')) return undefined;
      throw error;
    }
  }
  return {
    read: async () => (await current())?.data ?? undefined,
    async update(change) {
      for (let attempt = 0; ; attempt++) {
        const existing = await current();
        const resourceVersion = existing?.metadata?.resourceVersion;
        const body = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace, labels, ...(resourceVersion ? { resourceVersion } : {}) },
          data: change(existing?.data ?? undefined),
        };
        try {
          await (resourceVersion
            ? client.core.replaceNamespacedConfigMap({ name, namespace, body })
            : client.core.createNamespacedConfigMap({ namespace, body }));
          return;
        } catch (error) {
          const raced = isKubeError(error, 'conflict') || isKubeError(error, 'already-exists');
          if (!raced || attempt + 1 >= ATTEMPTS) throw error;
        }
      }
    },
  };
}
