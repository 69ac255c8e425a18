/**
 * `agent:` — the reporter agent's sentinel settings (infra/agent/kubemaint-agent.sh, ADR 0022):
 * which host file means "reboot required" and how often it is checked. The control plane writes
 * them into the ConfigMap `kubemaint-agent`, which the DaemonSet mounts; a variable set in the
 * DaemonSet's `env:` wins over them (SENTINEL_FILE, PERIOD_SECONDS, JITTER_SECONDS). A sentinel
 * command is not here on purpose: it runs as root on every node, so it comes from the DaemonSet,
 * which only the installer writes, not from an object the control plane writes.
 */
import { z } from 'zod';
import { formatDuration } from '../core/duration.js';
import { checkedText, describeValue, duration } from './fields.js';

const SECOND = 1_000;
const MIN_PERIOD = 10 * SECOND;
const MAX_PERIOD = 24 * 3_600 * SECOND;

/** An absolute host path the agent's shell can use as it is: no `..`, no spaces or quotes. */
const hostPath = () =>
  checkedText((text) =>
    /^\/[A-Za-z0-9._/-]*$/.test(text) && !text.split('/').includes('..')
      ? undefined
      : {
          message: `${describeValue(text)} is not an absolute host path of letters, digits, '.', '_', '-' and '/'`,
          hint: "e.g. /var/run/reboot-required (the DaemonSet mounts the host's /var/run)",
        },
  );

export const AgentSchema = z
  .strictObject({
    // kured --reboot-sentinel. The default DaemonSet mounts only the host's /var/run.
    sentinelFile: hostPath().default('/var/run/reboot-required'),
    // kured --period: how often the host is checked.
    period: duration().default(5 * 60 * SECOND),
    // Each wait is period ± up to this, so a fleet does not patch in lockstep. Default: period/5.
    jitter: duration().optional(),
  })
  .superRefine((agent, ctx) => {
    if (agent.period < MIN_PERIOD || agent.period > MAX_PERIOD)
      ctx.addIssue({
        code: 'custom',
        path: ['period'],
        message: `${formatDuration(agent.period)} is outside 10s … 24h`,
        params: { hint: 'the agent checks one file: every few minutes is plenty (default 5m)' },
      });
    if (agent.jitter !== undefined && agent.jitter > agent.period)
      ctx.addIssue({
        code: 'custom',
        path: ['jitter'],
        message: `${formatDuration(agent.jitter)} is longer than period (${formatDuration(agent.period)})`,
        params: {
          hint: 'jitter spreads each wait around period: at most period, default period/5',
        },
      });
  });

export type AgentConfig = z.output<typeof AgentSchema>;
