/**
 * Whether a reboot of a node lets its kubelet stop the pods left on it gracefully (ADR 0049). With
 * `shutdownGracePeriod` set, the kubelet holds a logind delay inhibitor and gives pods that long
 * (the last `shutdownGracePeriodCriticalPods` of it to critical pods) before systemd goes on; at 0
 * (the kubelet's default) the pods a drain leaves (DaemonSet pods, the executor's own) die under
 * systemd's stop timeout. The reporter agent writes the setting as node annotations; this reads
 * them, in the kubelet's own spelling (Go's time.Duration: `20s`, `1m30s`, `0s`). A kubelet with
 * `shutdownGracePeriodByPodPriority` waits for each priority group in turn, lowest first: the period
 * is then the groups' sum, and the groups come in an annotation of their own. Pure.
 */
import {
  ANN_SHUTDOWN_GRACE_PERIOD,
  ANN_SHUTDOWN_GRACE_PERIOD_BY_POD_PRIORITY,
  ANN_SHUTDOWN_GRACE_PERIOD_CRITICAL,
  ANN_SHUTDOWN_GRACE_PERIOD_SOURCE,
} from './names.js';

/** One group of `shutdownGracePeriodByPodPriority`: pods from this priority up get `period`. */
export interface PriorityGroup {
  priority: number;
  period: string;
}

export type GracefulShutdown =
  | {
      state: 'on';
      period: string;
      critical: string;
      source: string;
      /** Set when the kubelet shuts pods down by pod priority; `period` is then the groups' sum. */
      byPodPriority?: PriorityGroup[];
    }
  | { state: 'off'; period: string; source: string; byPodPriority?: PriorityGroup[] }
  /** Nothing readable: no agent, an old agent, or one that could read neither configz nor the file. */
  | { state: 'unknown'; why: string };

const UNIT_NS = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 } as const;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;

/**
 * Go's time.ParseDuration in milliseconds: a sequence of number+unit (`1h30m`, `1.5s`, `500ms`),
 * or a bare `0`; undefined for anything else (a negative or unitless value included).
 */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  let ns = 0;
  let at = 0;
  // Sticky and global: each part must start where the last one ended.
  for (const [whole, amount, unit] of text.matchAll(PART)) {
    ns += Number(amount) * UNIT_NS[unit as keyof typeof UNIT_NS];
    at += whole.length;
  }
  return at > 0 && at === text.length ? ns / 1e6 : undefined;
}

const GROUP = /^(-?\d{1,10}):(.+)$/;

/**
 * The by-pod-priority annotation's groups, or undefined when absent or not every pair reads (the
 * period and critical share still stand; only the breakdown is not shown).
 */
export function parsePriorityGroups(text: string | undefined): PriorityGroup[] | undefined {
  if (!text) return undefined;
  const groups: PriorityGroup[] = [];
  for (const pair of text.split(',')) {
    const m = GROUP.exec(pair);
    if (!m || parseGoDuration(m[2]!) === undefined) return undefined;
    groups.push({ priority: Number(m[1]), period: m[2]! });
  }
  return groups;
}

/** What the annotations say; a value that is not a duration is unknown, with why. */
export function readGracefulShutdown(
  annotations: Readonly<Record<string, string | undefined>>,
): GracefulShutdown {
  const period = annotations[ANN_SHUTDOWN_GRACE_PERIOD];
  const source = annotations[ANN_SHUTDOWN_GRACE_PERIOD_SOURCE] ?? 'unknown source';
  if (period === undefined)
    return { state: 'unknown', why: `the node has no ${ANN_SHUTDOWN_GRACE_PERIOD} annotation` };
  const ms = parseGoDuration(period);
  if (ms === undefined)
    return {
      state: 'unknown',
      why: `${ANN_SHUTDOWN_GRACE_PERIOD} is ${JSON.stringify(period.slice(0, 40))}, not a duration`,
    };
  const groups = parsePriorityGroups(annotations[ANN_SHUTDOWN_GRACE_PERIOD_BY_POD_PRIORITY]);
  const byPodPriority = groups ? { byPodPriority: groups } : {};
  if (ms === 0) return { state: 'off', period, source, ...byPodPriority };
  const critical = annotations[ANN_SHUTDOWN_GRACE_PERIOD_CRITICAL] ?? '0s';
  return { state: 'on', period, critical, source, ...byPodPriority };
}

const FIX = 'set shutdownGracePeriod in the kubelet config';
const FIX_BY_PRIORITY = 'give shutdownGracePeriodByPodPriority periods in the kubelet config';

/** `priority ≥0: 20s, ≥2000000000: 10s`: each group from its lowest priority up. */
const groupsLine = (groups: readonly PriorityGroup[]): string =>
  `priority ${groups.map((g) => `≥${g.priority}: ${g.period}`).join(', ')}`;

/** The warning a prompt and `kubemaint status` show before a reboot, or undefined when it is set. */
export function gracefulShutdownWarning(fact: GracefulShutdown): string | undefined {
  if (fact.state === 'on') return undefined;
  if (fact.state === 'off' && fact.byPodPriority)
    return `shutdownGracePeriodByPodPriority totals ${fact.period} (${groupsLine(fact.byPodPriority)}; from ${fact.source}): pods will not be terminated gracefully on reboot: ${FIX_BY_PRIORITY}`;
  const what =
    fact.state === 'off'
      ? `shutdownGracePeriod is ${fact.period} (from ${fact.source})`
      : `shutdownGracePeriod is unknown: ${fact.why}`;
  return `${what}: pods will not be terminated gracefully on reboot: ${FIX}`;
}

/** One line for a prompt: the setting (by pod priority: the total, then each group), or the warning. */
export function describeGracefulShutdown(fact: GracefulShutdown): string {
  if (fact.state !== 'on') return gracefulShutdownWarning(fact)!;
  return fact.byPodPriority
    ? `${fact.period} by pod priority (${groupsLine(fact.byPodPriority)}; critical pods ${fact.critical}), from ${fact.source}`
    : `${fact.period} (critical pods ${fact.critical}), from ${fact.source}`;
}
