/**
 * The node lifecycle controller's decisions, pure: whether a node's heartbeats are overdue, which
 * managed taints its Ready condition and `spec.unschedulable` call for, and when (if ever) a pod on a
 * `NoExecute`-tainted node must be evicted given its tolerations (`tolerationSeconds`).
 */
import type { KObject } from '../types.js';
import { tolerates } from './selectors.js';
import { findCondition, podSpec, type Condition, type Taint } from './shapes.js';

export const TAINT = {
  notReady: 'node.kubernetes.io/not-ready',
  unreachable: 'node.kubernetes.io/unreachable',
  unschedulable: 'node.kubernetes.io/unschedulable',
} as const;

const MANAGED: ReadonlySet<string> = new Set(Object.values(TAINT));

/** The latest sign of life: the kube-node-lease renewTime or the Ready condition's heartbeat. */
export function lastHeartbeat(node: KObject, lease: KObject | undefined): number | undefined {
  const ready = findCondition(node.status?.['conditions'] as Condition[] | undefined, 'Ready');
  const times = [
    ready?.lastHeartbeatTime,
    lease?.spec?.['renewTime'] as string | undefined,
  ].flatMap((t) => (t ? [Date.parse(t)] : []));
  return times.length > 0 ? Math.max(...times) : undefined;
}

export function readyStatus(node: KObject): Condition['status'] {
  const conditions = node.status?.['conditions'] as Condition[] | undefined;
  return findCondition(conditions, 'Ready')?.status ?? 'Unknown';
}

/**
 * The node's taints with the managed ones set for its state; `timeAdded` of a taint that stays is kept,
 * because NoExecute toleration seconds count from it.
 */
export function desiredTaints(node: KObject, nowIso: string): Taint[] {
  const current = (node.spec?.['taints'] ?? []) as Taint[];
  const wanted: Taint[] = [];
  if (node.spec?.['unschedulable'] === true) {
    wanted.push({ key: TAINT.unschedulable, effect: 'NoSchedule' });
  }
  const ready = readyStatus(node);
  const health = ready === 'False' ? TAINT.notReady : ready === 'Unknown' ? TAINT.unreachable : '';
  if (health) {
    wanted.push({ key: health, effect: 'NoSchedule' }, { key: health, effect: 'NoExecute' });
  }
  const kept = current.filter((taint) => !MANAGED.has(taint.key));
  const managed = wanted.map((taint) => {
    const same = current.find((t) => t.key === taint.key && t.effect === taint.effect);
    return same ?? { ...taint, timeAdded: nowIso };
  });
  return [...kept, ...managed];
}

export const sameTaints = (a: readonly Taint[], b: readonly Taint[]): boolean =>
  a.length === b.length &&
  a.every((t) => b.some((u) => u.key === t.key && u.effect === t.effect && u.value === t.value));

/**
 * When the taint manager evicts `pod` from a node carrying `taints` (`getMinTolerationTime`): `now` when a
 * NoExecute taint is not tolerated or a matching toleration has seconds <= 0; else the smallest
 * `tolerationSeconds` of the matching tolerations after the taint appeared; undefined when tolerated
 * forever.
 */
export function evictionTime(
  pod: KObject,
  taints: readonly Taint[],
  now: number,
): number | undefined {
  const tolerations = podSpec(pod).tolerations ?? [];
  const noExecute = taints.filter((taint) => taint.effect === 'NoExecute');
  if (noExecute.length === 0) return undefined;
  const seconds: number[] = [];
  for (const taint of noExecute) {
    const matching = tolerations.filter((t) => tolerates(t, taint));
    if (matching.length === 0) return now;
    for (const t of matching)
      if (t.tolerationSeconds !== undefined) seconds.push(t.tolerationSeconds);
  }
  if (seconds.length === 0) return undefined;
  const limit = Math.min(...seconds);
  if (limit <= 0) return now;
  const since = Math.min(...noExecute.map((t) => (t.timeAdded ? Date.parse(t.timeAdded) : now)));
  return since + limit * 1_000;
}
