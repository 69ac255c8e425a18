/**
 * One ConfigMap of the kubemaint namespace that the control plane owns whole (the agent's settings,
 * the observed durations): read it, and change it by a conditional write that re-reads on a 409, so
 * two control planes writing at once both land instead of one losing the other's change.
 */
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { once, withRetry } from './retry.js';

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
  let queue: Promise<void> = Promise.resolve();
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
    update(change) {
      // One write of this process at a time: the tick proves several nodes at once, and each records
      // its duration; side by side they would only make each other retry.
      const turn = queue.then(() => write(change));
      queue = turn.catch(() => undefined);
      return turn;
    },
  };

  async function write(change: Parameters<OwnedConfigMap['update']>[0]): Promise<void> {
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
        // Translated, so a conflict is told apart (the client throws its own ApiException); not
        // repeated on a network error, which may have landed: the change would be made twice.
        await once(`write configmap ${namespace}/${name}`, () =>
          resourceVersion
            ? client.core.replaceNamespacedConfigMap({ name, namespace, body })
            : client.core.createNamespacedConfigMap({ namespace, body }),
        );
        return;
      } catch (error) {
        const raced = isKubeError(error, 'conflict') || isKubeError(error, 'already-exists');
        if (!raced || attempt + 1 >= ATTEMPTS) throw error;
      }
    }
  }
}
