/**
 * The scheduler's decision for one pod, pure: which nodes pass kube-scheduler's filters, in its
 * order (NodeUnschedulable, TaintToleration on NoSchedule/NoExecute, NodeAffinity, NodeResourcesFit:
 * pod count, CPU and memory requests, scheduler-fit.ts) and, among them, the least loaded one. When
 * none fits, the reasons read like kube-scheduler's
 * `0/6 nodes are available: 1 Insufficient cpu, 2 node(s) were unschedulable, …`.
 */
import type { KObject } from '../types.js';
import { isTolerated } from './selectors.js';
import { podSpec, type Taint } from './shapes.js';
import {
  insufficientResources,
  matchesNodeAffinity,
  maxPodsOf,
  NO_USAGE,
  untoleratedTaint,
  type NodeUsage,
} from './scheduler-fit.js';

const UNSCHEDULABLE_TAINT: Taint = {
  key: 'node.kubernetes.io/unschedulable',
  effect: 'NoSchedule',
};

/** The Filter plugins' reasons (`framework.Status.Reasons()`), as FitError counts them. */
const RESOURCE_REASONS = {
  pods: 'Too many pods',
  cpu: 'Insufficient cpu',
  memory: 'Insufficient memory',
} as const;

export type Placement = { node: string } | { node?: undefined; message: string };

/** Why `node` cannot take `pod` (the first failing filter's reasons), or [] when it can. */
function whyNot(pod: KObject, node: KObject, usage: NodeUsage): string[] {
  // The scheduler checks spec.unschedulable itself, not only the taint the lifecycle controller adds.
  if (
    node.spec?.['unschedulable'] === true &&
    !isTolerated(podSpec(pod).tolerations, UNSCHEDULABLE_TAINT)
  ) {
    return ['node(s) were unschedulable'];
  }
  const taint = untoleratedTaint(pod, node, ['NoSchedule', 'NoExecute']);
  if (taint) return [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`];
  if (!matchesNodeAffinity(pod, node)) return ["node(s) didn't match Pod's node affinity/selector"];
  return insufficientResources(pod, node, usage).map((r) => RESOURCE_REASONS[r.resource]);
}

/** Pick a node for `pod`; `usage` holds what the active pods already bound take from each node. */
export function placePod(
  pod: KObject,
  nodes: readonly KObject[],
  usage: ReadonlyMap<string, NodeUsage>,
): Placement {
  const rejections = new Map<string, number>();
  let best: { name: string; load: number } | undefined;
  for (const node of nodes) {
    const name = node.metadata.name ?? '';
    const used = usage.get(name) ?? NO_USAGE;
    const reasons = whyNot(pod, node, used);
    if (reasons.length > 0) {
      for (const reason of reasons) rejections.set(reason, (rejections.get(reason) ?? 0) + 1);
      continue;
    }
    // Spread: fewest pods relative to capacity, then name, so placement is deterministic.
    const load = used.pods / maxPodsOf(node);
    if (!best || load < best.load || (load === best.load && name < best.name)) {
      best = { name, load };
    }
  }
  if (best) return { node: best.name };
  const parts = [...rejections].map(([reason, n]) => `${n} ${reason}`);
  const detail = parts.length > 0 ? ` ${parts.sort().join(', ')}.` : '';
  return { message: `0/${nodes.length} nodes are available:${detail}` };
}
