/**
 * Whether an approved request may start on its node now: ordered gates (pause, freeze, window, the
 * soak after the last node, other unhealthy or flapping nodes, firing alerts, Prometheus query
 * gates, blocking pods, a free slot, PDB preflight), each returning a human reason. EVERY failing
 * gate is reported, not only the first, so one Slack message tells people everything that stands in
 * the way. A gate whose facts could not be read (`{ error }`) blocks: we fail closed, as kured does
 * when its Prometheus or pod query fails. A gate whose facts are absent is not configured and
 * passes. Pure: the caller gathers the facts and passes `now`.
 */
import { DateTime } from 'luxon';
import { formatDuration } from './duration.js';
import { describeGate, judgeQuery, type QueryGate, type QueryStep } from './query-gate.js';

export const GATES = [
  'pause',
  'freeze',
  'window',
  'soak',
  'unhealthy',
  'flapping',
  'alerts',
  'queries',
  'blocking-pods',
  'slot',
  'pdb',
] as const;
export type Gate = (typeof GATES)[number];

export interface Reason {
  gate: Gate;
  message: string;
}
export type PolicyVerdict = { verdict: 'proceed' } | { verdict: 'blocked'; reasons: Reason[] };

/**
 * A reason as a waiting request keeps it (`blockedReasons`): without who holds the slots. Holders
 * change with every hand-off; kept in the reason, each hand-off rewrote every waiting request (and
 * told Slack and the node's Events about it), O(waiting) writes per node in a long roll. Who holds
 * them is read live (`kubemaint slots`, the preview).
 */
export function storedReason(reason: Reason): string {
  // slotGate's holder list is the one parenthesised suffix; node names never contain parentheses.
  return reason.gate === 'slot' ? reason.message.replace(/ \([^()]*\)$/, '') : reason.message;
}

/** Facts, or why they could not be read. */
export type Readable<T> = T | { error: string };

/** What `windows.ts` computes for now; `freeze` wins over an open window. */
export interface WindowFacts {
  open: boolean;
  closesAt?: Date;
  nextOpening?: Date;
  freeze?: { reason: string; until?: Date };
}

/** One sample of Prometheus `ALERTS`: `alertname` and `alertstate`. */
export interface Alert {
  name: string;
  state?: 'firing' | 'pending';
}

/** kured's `--alert-filter-regexp`, `--alert-filter-match-only`, `--alert-firing-only`. */
export interface AlertFilter {
  /** A regular expression on alert names: matching alerts are ignored (or, with matchOnly, the only ones). */
  regexp?: string;
  /** Only alerts matching `regexp` block. @default false */
  matchOnly?: boolean;
  /** Pending alerts do not block. @default false */
  firingOnly?: boolean;
}

export interface SlotFacts {
  inUse: number;
  limit: number;
  /** Nodes holding the slots, for the message. */
  holders?: readonly string[];
  /** The node's pool, when per-pool limits are configured. */
  pool?: { name: string; inUse: number; limit: number; holders?: readonly string[] };
}

/** A PDB selecting pods the drain would evict from this node (the adapter's dry-run preflight). */
export interface BudgetFacts {
  /** `namespace/name`. */
  name: string;
  disruptionsAllowed: number;
  /** The PDB's pods on this node that the drain would evict, `namespace/name`. */
  pods: readonly string[];
}

export interface PolicyFacts {
  node: string;
  /** Zone for times in messages. @default 'UTC' */
  timeZone?: string;
  /** How long this node's drain + host command + verification is expected to take. */
  expectedDurationMs?: number;
  /** Where that comes from (`p90 of the last 12 reboots`, `reboot.expectedDuration; …`). */
  expectedDurationSource?: string;
  pause?: Readable<{ paused: boolean; reason?: string; by?: string }>;
  window?: Readable<WindowFacts>;
  /** Nodes not Ready (kubemaint's own in-flight nodes excluded by the caller) and the allowed most. */
  unhealthy?: Readable<{ nodes: readonly string[]; max: number }>;
  /** Other nodes that went NotReady more than `max` times within `withinMs` (not by kubemaint). */
  flapping?: Readable<{
    nodes: readonly { name: string; times: number }[];
    max: number;
    withinMs: number;
  }>;
  alerts?: Readable<{ alerts: readonly Alert[]; filter?: AlertFilter }>;
  /** Each Prometheus query gate with its answer at each step (oldest first), or why it has none. */
  queries?: readonly { gate: QueryGate; answer: Readable<{ steps: readonly QueryStep[] }> }[];
  /** How long the fleet settles after a node came back before the next starts, and the last one. */
  soak?: { ms: number; last?: { node: string; at: Date } };
  /** Pods on this node matching a blocking pod selector, with their phase. */
  blockingPods?: Readable<{ pods: readonly { pod: string; phase?: string; selector: string }[] }>;
  slots?: Readable<SlotFacts>;
  /**
   * The drain preflight: budgets from a dry-run eviction of each pod the drain would evict, and the
   * drain's own refusals (pods it would not delete with the configured options).
   */
  pdbs?: Readable<{ budgets: readonly BudgetFacts[]; refusals?: readonly string[] }>;
}

const isError = <T extends object>(value: Readable<T>): value is { error: string } =>
  'error' in value && typeof value.error === 'string';

/** `n1, n2, n3 and 4 more`: keeps a Slack line readable for a large fleet. */
export function listSome(items: readonly string[], most = 5): string {
  const shown = items.slice(0, most).join(', ');
  return items.length > most ? `${shown} and ${items.length - most} more` : shown;
}

/** `Sat 02:00 Europe/Berlin`, with the date when it is a week or more away. */
export function describeTime(at: Date, now: Date, zone = 'UTC'): string {
  let time = DateTime.fromJSDate(at, { zone }).setLocale('en');
  if (!time.isValid) time = DateTime.fromJSDate(at, { zone: 'UTC' }).setLocale('en');
  const far = at.getTime() - now.getTime() >= 6.5 * 86_400_000;
  return `${time.toFormat(far ? 'ccc d LLL HH:mm' : 'ccc HH:mm')} ${time.zoneName ?? 'UTC'}`;
}

type Check = (facts: PolicyFacts, now: Date) => string[];

const pauseGate: Check = ({ pause }) => {
  if (!pause) return [];
  if (isError(pause)) return [`could not read the pause state: ${pause.error}`];
  if (!pause.paused) return [];
  const by = pause.by ? ` by ${pause.by}` : '';
  return [`kubemaint is paused${by}${pause.reason ? `: ${pause.reason}` : ''}`];
};

const freezeGate: Check = ({ window, timeZone }, now) => {
  if (!window || isError(window) || !window.freeze) return [];
  const { reason, until } = window.freeze;
  return [`freeze: ${reason}${until ? ` (until ${describeTime(until, now, timeZone)})` : ''}`];
};

const windowGate: Check = (
  { window, timeZone, expectedDurationMs, expectedDurationSource, node },
  now,
) => {
  if (!window) return [];
  if (isError(window)) return [`could not evaluate the maintenance windows: ${window.error}`];
  if (!window.open) {
    const opens = window.nextOpening
      ? `opens ${describeTime(window.nextOpening, now, timeZone)}`
      : 'no opening ahead';
    return [`window closed; ${opens}`];
  }
  if (expectedDurationMs === undefined || !window.closesAt) return [];
  const left = window.closesAt.getTime() - now.getTime();
  if (expectedDurationMs <= left) return [];
  const closes = describeTime(window.closesAt, now, timeZone);
  return [
    `window closes ${closes}, in ${formatDuration(Math.max(0, left))}; ${node} needs about ${formatDuration(expectedDurationMs)} (drain + host command + verify${expectedDurationSource ? `: ${expectedDurationSource}` : ''})`,
  ];
};

const unhealthyGate: Check = ({ unhealthy, node }) => {
  if (!unhealthy) return [];
  if (isError(unhealthy)) return [`could not read node health: ${unhealthy.error}`];
  // The candidate itself does not count: a reboot is often what makes it healthy again.
  const others = [...new Set(unhealthy.nodes)].filter((n) => n !== node).sort();
  if (others.length <= unhealthy.max) return [];
  const noun = others.length === 1 ? 'other node is' : 'other nodes are';
  return [
    `${others.length} ${noun} not Ready (${listSome(others)}); at most ${unhealthy.max} allowed`,
  ];
};

const soakGate: Check = ({ soak, timeZone }, now) => {
  if (!soak?.last || soak.ms <= 0) return [];
  const until = new Date(soak.last.at.getTime() + soak.ms);
  if (now >= until) return [];
  const back = describeTime(soak.last.at, now, timeZone);
  return [
    `soaking ${formatDuration(soak.ms)} after ${soak.last.node} came back (${back}); the next node may start ${describeTime(until, now, timeZone)}`,
  ];
};

const flappingGate: Check = ({ flapping, node }) => {
  if (!flapping) return [];
  if (isError(flapping)) return [`could not read the nodes' NotReady history: ${flapping.error}`];
  // As for unhealthy nodes, the candidate itself does not count: a reboot may be its cure.
  const flappers = flapping.nodes
    .filter((n) => n.name !== node && n.times > flapping.max)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (flappers.length === 0) return [];
  const within = formatDuration(flapping.withinMs);
  if (flappers.length === 1) {
    const [one] = flappers as [{ name: string; times: number }];
    return [
      `node ${one.name} went NotReady ${one.times} times in the last ${within}; at most ${flapping.max} allowed`,
    ];
  }
  const named = listSome(flappers.map((n) => `${n.name} (${n.times})`));
  return [
    `${flappers.length} nodes went NotReady more than ${flapping.max} times in the last ${within}: ${named}`,
  ];
};

const queriesGate: Check = ({ queries }) =>
  (queries ?? []).flatMap(({ gate, answer }) => {
    if (isError(answer))
      return [`could not evaluate Prometheus gate ${describeGate(gate)}: ${answer.error}`];
    const why = judgeQuery(gate, answer.steps);
    return why === undefined ? [] : [why];
  });

const alertsGate: Check = ({ alerts }) => {
  if (!alerts) return [];
  if (isError(alerts)) return [`could not query Prometheus alerts: ${alerts.error}`];
  const { regexp, matchOnly = false, firingOnly = false } = alerts.filter ?? {};
  let filter: RegExp | undefined;
  try {
    filter = regexp === undefined || regexp === '' ? undefined : new RegExp(regexp);
  } catch {
    return [`alert filter "${regexp}" is not a valid regular expression; fix the alert filter`];
  }
  const blocking = new Map<string, string>();
  for (const alert of alerts.alerts) {
    // kured: a filter match means "ignore", or with matchOnly "only these".
    if (filter && filter.test(alert.name) !== matchOnly) continue;
    if (firingOnly && alert.state !== 'firing') continue;
    if (blocking.get(alert.name) !== 'firing') blocking.set(alert.name, alert.state ?? 'firing');
  }
  return [...blocking]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, state]) => `alert ${name} ${state}`);
};

const blockingPodsGate: Check = ({ blockingPods }) => {
  if (!blockingPods) return [];
  if (isError(blockingPods)) return [`could not list blocking pods: ${blockingPods.error}`];
  // kured: pods that finished or whose state is unknown do not block.
  const done = new Set(['Succeeded', 'Failed', 'Unknown']);
  return blockingPods.pods
    .filter((p) => !done.has(p.phase ?? ''))
    .map((p) => `pod ${p.pod} matches blocking selector ${p.selector}`);
};

const slotGate: Check = ({ slots }) => {
  if (!slots) return [];
  if (isError(slots)) return [`could not read the slots: ${slots.error}`];
  const reasons: string[] = [];
  const held = (holders?: readonly string[]) => (holders?.length ? ` (${listSome(holders)})` : '');
  if (slots.limit <= 0) reasons.push('concurrency is 0: no node may start');
  else if (slots.inUse >= slots.limit)
    reasons.push(`all ${slots.limit} slots in use${held(slots.holders)}`);
  const pool = slots.pool;
  if (pool && pool.inUse >= pool.limit)
    reasons.push(`pool ${pool.name} at its limit ${pool.limit}${held(pool.holders)}`);
  return reasons;
};

const pdbGate: Check = ({ pdbs }) => {
  if (!pdbs) return [];
  if (isError(pdbs)) return [`could not run the PDB preflight: ${pdbs.error}`];
  const reasons = (pdbs.refusals ?? []).map((r) => `the drain would refuse: ${r}`);
  const coveredBy = new Map<string, string[]>();
  for (const budget of pdbs.budgets) {
    for (const pod of budget.pods) coveredBy.set(pod, [...(coveredBy.get(pod) ?? []), budget.name]);
    if (budget.pods.length === 0 || budget.disruptionsAllowed > 0) continue;
    const noun = budget.pods.length === 1 ? 'pod' : 'pods';
    reasons.push(
      `PDB ${budget.name} allows ${Math.max(0, budget.disruptionsAllowed)} disruptions (${noun} ${listSome(budget.pods)})`,
    );
  }
  // The Eviction API answers 500 for a pod under several PDBs; kubectl gives up on it.
  for (const [pod, names] of coveredBy) {
    if (names.length > 1)
      reasons.push(
        `pod ${pod} is covered by ${names.length} PDBs (${names.join(', ')}); the Eviction API refuses it`,
      );
  }
  return reasons;
};

const CHECKS: Record<Gate, Check> = {
  pause: pauseGate,
  freeze: freezeGate,
  window: windowGate,
  soak: soakGate,
  unhealthy: unhealthyGate,
  flapping: flappingGate,
  alerts: alertsGate,
  queries: queriesGate,
  'blocking-pods': blockingPodsGate,
  slot: slotGate,
  pdb: pdbGate,
};

/** Run every gate in order and collect every reason; `proceed` only when none fails. */
export function evaluatePolicy(facts: PolicyFacts, now: Date): PolicyVerdict {
  const reasons = GATES.flatMap((gate) =>
    CHECKS[gate](facts, now).map((message) => ({ gate, message })),
  );
  return reasons.length === 0 ? { verdict: 'proceed' } : { verdict: 'blocked', reasons };
}
