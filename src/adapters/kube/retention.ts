/**
 * Retention's port over the API (app/control/retention.ts): the whole request history with its
 * phase labels, relabels and deletions through the request store, and the summary lines in the
 * ConfigMap `kubemaint-history`, which only the control plane writes (RBAC names it;
 * admission-requests.yaml refuses other names). A ConfigMap key is a node name (both are DNS
 * subdomains); anything else in it is left as it is and not shown.
 */
import type { RetentionPort } from '../../app/control/retention.js';
import { addHistory, historyLines } from '../../core/history.js';
import type { KubeClient } from './client.js';
import { ownedConfigMap } from './configmap-store.js';
import { requestStore } from './requests.js';

export const HISTORY_CONFIGMAP = 'kubemaint-history';

export function kubeRetention(client: KubeClient, namespace: string): RetentionPort {
  const store = requestStore(client, { namespace });
  const configMap = ownedConfigMap(client, namespace, HISTORY_CONFIGMAP, {
    'app.kubernetes.io/managed-by': 'kubemaint',
  });
  return {
    async list(node) {
      const { requests } = await store.list(node === undefined ? {} : { node });
      return requests.map((stored) => ({ request: stored.request, phase: stored.phase }));
    },
    async relabel(id, phase) {
      await store.relabel(id, phase);
    },
    remove: (id) => store.removeWithDecisions(id),
    keep: (lines) => configMap.update((data) => addHistory(data ?? {}, lines)),
    async history(node) {
      const data = (await configMap.read()) ?? {};
      const nodes = node === undefined ? Object.keys(data) : [node];
      return Object.fromEntries(nodes.map((name) => [name, historyLines(data[name])]));
    },
  };
}
