/**
 * Whether a pod fits a node, the one answer the scheduler (scheduling.ts) and the kubelets
 * (kubelet-admission.ts) both use, as kube-scheduler's `AdmissionCheck` is shared with the kubelet:
 * `noderesources.Fits` (pod count, CPU and memory requests against the node's allocatable, given
 * what its active pods already request) and the NodeAffinity filter (`nodeSelector` and required
 * node affinity). Taints differ between the two (the scheduler minds NoSchedule, the kubelet only
 * NoExecute), so each checks them itself with `untoleratedTaint`.
 */
import type { KObject } from '../types.js';
import { isTolerated, matchesNodeSelectorTerms } from './selectors.js';
import { podSpec, type Taint } from './shapes.js';
import {
  podRequests,
  quantityValue,
  type CountedResource,
  type Requests,
} from './scheduler-requests.js';

/** Nodes advertise `status.allocatable.pods`; kubelet's default max-pods is 110. */
export const DEFAULT_MAX_PODS = 110;

/** What the active pods bound to a node take from it. */
export interface NodeUsage extends Requests {
  pods: number;
}

export const NO_USAGE: NodeUsage = { pods: 0, milliCPU: 0, memory: 0 };

/** `usage` with one more pod that requests `requests`. */
export const addPod = (usage: NodeUsage, requests: Requests): NodeUsage => ({
  pods: usage.pods + 1,
  milliCPU: usage.milliCPU + requests.milliCPU,
  memory: usage.memory + requests.memory,
});

export const usageOf = (pods: readonly KObject[]): NodeUsage =>
  pods.reduce((usage, pod) => addPod(usage, podRequests(pod)), NO_USAGE);

/** One resource the node lacks: `InsufficientResource` (requested, used, capacity in its unit). */
export interface Insufficient {
  resource: CountedResource;
  requested: number;
  used: number;
  capacity: number;
}

export function maxPodsOf(node: KObject): number {
  const pods = quantityValue(allocatable(node)['pods'], 0);
  return pods !== undefined && pods > 0 ? pods : DEFAULT_MAX_PODS;
}

const allocatable = (node: KObject): Record<string, unknown> =>
  (node.status?.['allocatable'] ?? {}) as Record<string, unknown>;

/**
 * `noderesources.Fits`: every resource the node lacks, pods first. CPU and memory are checked only
 * when the pod requests them, so a pod without requests fits any node with a pod slot free.
 */
export function insufficientResources(
  pod: KObject,
  node: KObject,
  usage: NodeUsage,
): Insufficient[] {
  const out: Insufficient[] = [];
  const maxPods = maxPodsOf(node);
  if (usage.pods + 1 > maxPods) {
    out.push({ resource: 'pods', requested: 1, used: usage.pods, capacity: maxPods });
  }
  const wanted = podRequests(pod);
  const cpu = quantityValue(allocatable(node)['cpu'], 3) ?? 0;
  if (wanted.milliCPU > 0 && wanted.milliCPU > cpu - usage.milliCPU) {
    out.push({ resource: 'cpu', requested: wanted.milliCPU, used: usage.milliCPU, capacity: cpu });
  }
  const memory = quantityValue(allocatable(node)['memory'], 0) ?? 0;
  if (wanted.memory > 0 && wanted.memory > memory - usage.memory) {
    out.push({
      resource: 'memory',
      requested: wanted.memory,
      used: usage.memory,
      capacity: memory,
    });
  }
  return out;
}

/** The NodeAffinity filter: the pod's `nodeSelector` and its required node affinity both hold. */
export function matchesNodeAffinity(pod: KObject, node: KObject): boolean {
  const spec = podSpec(pod);
  const name = node.metadata.name ?? '';
  const labels = node.metadata.labels ?? {};
  const selectorOk = Object.entries(spec.nodeSelector ?? {}).every(([k, v]) => labels[k] === v);
  const terms =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return selectorOk && (!terms || matchesNodeSelectorTerms(terms, { name, labels }));
}

/** The first of the node's taints with one of `effects` that the pod does not tolerate. */
export function untoleratedTaint(
  pod: KObject,
  node: KObject,
  effects: readonly Taint['effect'][],
): Taint | undefined {
  const tolerations = podSpec(pod).tolerations;
  const taints = (node.spec?.['taints'] ?? []) as Taint[];
  return taints.find((t) => effects.includes(t.effect) && !isTolerated(tolerations, t));
}
