/**
 * What a DaemonSet's RollingUpdate does on one pass, decided from the pods on each node
 * (`pkg/controller/daemon/update.go` rollingUpdate): without surge, old pods are deleted while fewer
 * than `maxUnavailable` nodes lack an available pod (an old pod that is unavailable anyway goes at
 * once), and the manage loop creates the new pod once the old one is gone; with `maxSurge`, a new
 * pod starts beside the old one on up to `maxSurge` nodes at a time, and the old one goes once the
 * new one is available. Pure: the controller applies the plan.
 */
import type { KObject } from '../types.js';
import { findCondition, podStatus } from './shapes.js';
import { REVISION_HASH } from './controller-revisions.js';

export interface NodePods {
  node: string;
  /** Whether the DaemonSet still wants a pod there (selector and taints). */
  shouldRun: boolean;
  /** Not being deleted and not finished. */
  running: KObject[];
  /** Being deleted (they still occupy the node until gone). */
  terminating: KObject[];
}

export interface UpdatePlan {
  /** Pod names to delete. */
  remove: string[];
  /** Nodes that get a pod of the current template now (surge). */
  create: string[];
}

/** Ready, and for at least `minReadySeconds` (`podutil.IsPodAvailable`). */
export function isPodAvailable(pod: KObject, minReadySeconds: number, now: number): boolean {
  const ready = findCondition(podStatus(pod).conditions, 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}

/** An intstr (`1`, `"25%"`) against `total`, rounded up as the DaemonSet controller does. */
export function scaledValue(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  const percent = typeof value === 'string' ? /^(\d+)%$/.exec(value) : null;
  if (percent) return Math.ceil((Number(percent[1]) * total) / 100);
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

const isNew = (pod: KObject, hash: string) => pod.metadata.labels?.[REVISION_HASH] === hash;

/** The node's one new and one old running pod, or undefined when it has more of either. */
function split(pods: KObject[], hash: string): { newPod?: KObject; oldPod?: KObject } | undefined {
  const fresh = pods.filter((p) => isNew(p, hash));
  const stale = pods.filter((p) => !isNew(p, hash));
  if (fresh.length > 1 || stale.length > 1) return undefined;
  return { ...(fresh[0] ? { newPod: fresh[0] } : {}), ...(stale[0] ? { oldPod: stale[0] } : {}) };
}

export function planRollingUpdate(
  nodes: readonly NodePods[],
  options: {
    hash: string;
    maxUnavailable: number;
    maxSurge: number;
    minReadySeconds: number;
    now: number;
  },
): UpdatePlan {
  const { hash, maxSurge, minReadySeconds, now } = options;
  const available = (pod: KObject) => isPodAvailable(pod, minReadySeconds, now);
  const remove: string[] = [];
  const create: string[] = [];
  const withPods = nodes.filter((n) => n.running.length + n.terminating.length > 0);
  if (maxSurge === 0) {
    let unavailable = 0;
    const candidates: string[] = [];
    for (const n of withPods) {
      const pods = split(n.running, options.hash);
      if (!pods || (pods.newPod === undefined) === (pods.oldPod === undefined)) unavailable++;
      else if (pods.newPod) {
        if (!available(pods.newPod)) unavailable++;
      } else if (pods.oldPod && !available(pods.oldPod))
        remove.push(pods.oldPod.metadata.name ?? '');
      else if (pods.oldPod) candidates.push(pods.oldPod.metadata.name ?? '');
    }
    const budget = Math.max(0, options.maxUnavailable - unavailable);
    return { remove: [...remove, ...candidates.slice(0, budget)], create };
  }
  let surging = 0;
  const candidates: string[] = [];
  for (const n of withPods) {
    const pods = split(n.running, hash);
    if (!pods) {
      surging++;
      continue;
    }
    const { newPod, oldPod } = pods;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (n.shouldRun) create.push(n.node);
        else remove.push(oldPod.metadata.name ?? '');
      } else if (n.shouldRun) candidates.push(n.node);
    } else if (!available(newPod)) surging++;
    else remove.push(oldPod.metadata.name ?? '');
  }
  const budget = Math.max(0, maxSurge - surging);
  return { remove, create: [...create, ...candidates.slice(0, budget)] };
}
