/**
 * `agent:` of kubemaint.yaml mapped onto the data of the ConfigMap `kubemaint-agent` (ADR 0022), one
 * key per file of the mounted volume: a host path and whole seconds, which kubemaint-agent.sh reads
 * without parsing anything. These key names are the contract with the script.
 */
import type { AgentConfig } from '../config/schema-agent.js';

const SECOND = 1_000;

export function agentSettingsData(agent: AgentConfig): Record<string, string> {
  const seconds = (ms: number) => String(Math.round(ms / SECOND));
  return {
    'sentinel-file': agent.sentinelFile,
    'period-seconds': seconds(agent.period),
    'jitter-seconds': seconds(agent.jitter ?? agent.period / 5),
  };
}
