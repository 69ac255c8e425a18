/**
 * The reporter agent's settings in the ConfigMap `kubemaint-agent` of the kubemaint namespace (ADR
 * 0021): the DaemonSet mounts it (optional, so agents start before the first write), the control
 * plane writes it. RBAC names it for serve's get and update; admission-requests.yaml refuses serve
 * every other ConfigMap name. The data is replaced whole: it is derived from the config, not merged.
 */
import type { AgentSettingsPort } from '../../app/control/agent-settings.js';
import type { KubeClient } from './client.js';
import { ownedConfigMap } from './configmap-store.js';

export const AGENT_CONFIGMAP = 'kubemaint-agent';

export function configMapAgentSettings(client: KubeClient, namespace: string): AgentSettingsPort {
  const configMap = ownedConfigMap(client, namespace, AGENT_CONFIGMAP, {
    'app.kubernetes.io/managed-by': 'kubemaint',
    'app.kubernetes.io/component': 'agent',
  });
  return {
    read: () => configMap.read(),
    // Derived from the config, so two control planes write the same data: the last write wins.
    write: (data) => configMap.update(() => data),
  };
}
