/**
 * The reporter agent's settings from kubemaint.yaml (`agent:`, ADR 0022), published where every
 * agent reads them: the ConfigMap `kubemaint-agent`, mounted into the DaemonSet, whose files the
 * agent re-reads before each check. Written on each skew scan when it differs (serve's first tick
 * is one, and so is the Lambda's hourly one), so a changed config reaches the fleet within a kubelet
 * sync of the next start; never when it already says the same. A failure is reported, not thrown:
 * the agents keep what they read last, and detection goes on.
 */
export interface AgentSettingsPort {
  /** The ConfigMap's data, or undefined when there is none. */
  read(): Promise<Record<string, string> | undefined>;
  write(data: Record<string, string>): Promise<void>;
}

export async function publishAgentSettings(deps: {
  agentSettings?: AgentSettingsPort;
  settings: { agentSettings?: Record<string, string> };
}): Promise<string[]> {
  const wanted = deps.settings.agentSettings;
  if (!wanted || !deps.agentSettings) return [];
  try {
    const current = await deps.agentSettings.read();
    if (current && same(current, wanted)) return [];
    await deps.agentSettings.write(wanted);
    return [`agent settings written: ${describe(wanted)}`];
  } catch (error) {
    return [`agent settings not written: ${(error as Error).message}`];
  }
}

const same = (a: Record<string, string>, b: Record<string, string>): boolean =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

const describe = (data: Record<string, string>): string =>
  Object.entries(data)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
