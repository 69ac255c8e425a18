/**
 * The reporter agent's settings in the ConfigMap `kubemaint-agent` of the kubemaint namespace (ADR
 * 0021): the DaemonSet mounts it (optional, so agents start before the first write), the control
 * plane writes it. RBAC names it for serve's get and update; admission-requests.yaml refuses serve
 * every other ConfigMap name. The data is replaced whole: it is derived from the config, not merged.
 */
import type { AgentSettingsPort } from '../../app/control/agent-settings.js';
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { withRetry } from './retry.js';

export const AGENT_CONFIGMAP = 'kubemaint-agent';

export function configMapAgentSettings(client: KubeClient, namespace: string): AgentSettingsPort {
  const name = AGENT_CONFIGMAP;
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
    async write(data) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const existing = await current();
        const resourceVersion = existing?.metadata?.resourceVersion;
        const body = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name,
            namespace,
            labels: {
              'app.kubernetes.io/managed-by': 'kubemaint',
              'app.kubernetes.io/component': 'agent',
            },
            ...(resourceVersion ? { resourceVersion } : {}),
          },
          data,
        };
        try {
          await (resourceVersion
            ? client.core.replaceNamespacedConfigMap({ name, namespace, body })
            : client.core.createNamespacedConfigMap({ namespace, body }));
          return;
        } catch (error) {
          // Two control planes writing at once: read again; both write the same data.
          if (!isKubeError(error, 'conflict') && !isKubeError(error, 'already-exists')) throw error;
        }
      }
    },
  };
}
