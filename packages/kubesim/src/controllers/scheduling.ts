/**
 * The scheduler's decision for one pod, pure: which nodes pass the filters (node selector and required
 * node affinity, NoSchedule/NoExecute taints, `spec.unschedulable`, the per-node pod capacity) and,
 * among them, the least loaded one. When none fits, the reasons read like kube-scheduler's
 * `0/6 nodes are available: 2 node(s) were unschedulable, …`.
 */
import type { KObject } from '../types.js';
import { isTolerated, matchesNodeSelectorTerms } from './selectors.js';
import { podSpec, type Taint } from './shapes.js';

/** Nodes advertise `status.allocatable.pods`; kubelet's default max-pods is 110. */
export const DEFAULT_MAX_PODS = 110;

const UNSCHEDULABLE_TAINT: Taint = {
  key: 'node.kubernetes.io/unschedulable',
  effect: 'NoSchedule',
};

export type Placement = { node: string } | { node?: undefined; message: string };

export function maxPodsOf(node: KObject): number {
  const allocatable = (node.status?.['allocatable'] ?? {}) as Record<string, unknown>;
  const pods = Number(allocatable['pods']);
  return Number.isFinite(pods) && pods > 0 ? pods : DEFAULT_MAX_PODS;
}

function whyNot(pod: KObject, node: KObject, podsOnNode: number): string | undefined {
  const spec = podSpec(pod);
  const name = node.metadata.name ?? '';
  const labels = node.metadata.labels ?? {};
  const selectorOk = Object.entries(spec.nodeSelector ?? {}).every(([k, v]) => labels[k] === v);
  const terms =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!selectorOk || (terms && !matchesNodeSelectorTerms(terms, { name, labels }))) {
    return "didn't match Pod's node affinity/selector";
  }
  // The scheduler checks spec.unschedulable itself, not only the taint the lifecycle controller adds.
  if (
    node.spec?.['unschedulable'] === true &&
    !isTolerated(spec.tolerations, UNSCHEDULABLE_TAINT)
  ) {
    return 'were unschedulable';
  }
  const taints = (node.spec?.['taints'] ?? []) as Taint[];
  const blocking = taints.find(
    (taint) => taint.effect !== 'PreferNoSchedule' && !isTolerated(spec.tolerations, taint),
  );
  if (blocking) return `had untolerated taint {${blocking.key}: ${blocking.value ?? ''}}`;
  if (podsOnNode >= maxPodsOf(node)) return 'Too many pods';
  return undefined;
}

/** Pick a node for `pod`; `podCounts` holds the active pods already bound per node. */
export function placePod(
  pod: KObject,
  nodes: readonly KObject[],
  podCounts: ReadonlyMap<string, number>,
): Placement {
  const rejections = new Map<string, number>();
  let best: { name: string; load: number } | undefined;
  for (const node of nodes) {
    const name = node.metadata.name ?? '';
    const count = podCounts.get(name) ?? 0;
    const reason = whyNot(pod, node, count);
    if (reason) {
      rejections.set(reason, (rejections.get(reason) ?? 0) + 1);
      continue;
    }
    // Spread: fewest pods relative to capacity, then name, so placement is deterministic.
    const load = count / maxPodsOf(node);
    if (!best || load < best.load || (load === best.load && name < best.name)) {
      best = { name, load };
    }
  }
  if (best) return { node: best.name };
  const parts = [...rejections].map(([reason, n]) =>
    reason === 'Too many pods' ? `${n} ${reason}` : `${n} node(s) ${reason}`,
  );
  const detail = parts.length > 0 ? ` ${parts.sort().join(', ')}.` : '';
  return { message: `0/${nodes.length} nodes are available:${detail}` };
}
