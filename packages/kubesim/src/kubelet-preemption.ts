/**
 * Which pods a kubelet evicts to admit a critical pod that does not fit (pkg/kubelet/preemption,
 * `CriticalPodAdmissionHandler`), pure. Only pods the critical pod may preempt are candidates
 * (`Preemptable`: not critical themselves, or of lower priority); among them BestEffort pods go
 * first, then Burstable, then Guaranteed, and within each class the kubelet picks, one at a time,
 * the pod that covers most of what is still missing (the smallest "distance"), preferring the one
 * with smaller requests on a tie: few pods, and small ones. Pod priority beyond that filter plays no
 * part, as upstream.
 */
import type { KObject } from './types.js';
import { SYSTEM_CRITICAL_PRIORITY } from './priority.js';
import {
  qosClassOf,
  resourceRequest,
  type CountedResource,
} from './controllers/scheduler-requests.js';

/** One resource still missing: `admissionRequirement`. */
export interface Requirement {
  resource: CountedResource;
  quantity: number;
}

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

const priorityOf = (pod: KObject): number | undefined => {
  const value = pod.spec?.['priority'];
  return typeof value === 'number' ? value : undefined;
};

/** `IsCriticalPod`: a mirror (static) pod, or a priority of two billion and more. */
export function isCriticalPod(pod: KObject): boolean {
  if (pod.metadata.annotations?.[MIRROR_ANNOTATION] !== undefined) return true;
  return (priorityOf(pod) ?? 0) >= SYSTEM_CRITICAL_PRIORITY;
}

/** `Preemptable`: whether `preemptor` may evict `preemptee`. */
export function preemptable(preemptor: KObject, preemptee: KObject): boolean {
  if (isCriticalPod(preemptor) && !isCriticalPod(preemptee)) return true;
  const a = priorityOf(preemptor);
  const b = priorityOf(preemptee);
  return a !== undefined && b !== undefined && a > b;
}

/** What remains of `requirements` once `pods` are gone (`admissionRequirementList.subtract`). */
function subtract(requirements: readonly Requirement[], pods: readonly KObject[]): Requirement[] {
  const out: Requirement[] = [];
  for (const req of requirements) {
    let quantity = req.quantity;
    for (const pod of pods) {
      quantity -= resourceRequest(pod, req.resource);
      if (quantity <= 0) break;
    }
    if (quantity > 0) out.push({ resource: req.resource, quantity });
  }
  return out;
}

/** Each requirement weighs the same: the squared fraction of it the pod leaves uncovered. */
function distance(requirements: readonly Requirement[], pod: KObject): number {
  let sum = 0;
  for (const req of requirements) {
    const remaining = req.quantity - resourceRequest(pod, req.resource);
    if (remaining > 0) sum += (remaining / req.quantity) ** 2;
  }
  return sum;
}

/** `smallerResourceRequest`: memory first, then CPU; equal counts as smaller, as upstream. */
function smallerRequest(a: KObject, b: KObject): boolean {
  for (const resource of ['memory', 'cpu'] as const) {
    const ra = resourceRequest(a, resource);
    const rb = resourceRequest(b, resource);
    if (ra !== rb) return ra < rb;
  }
  return true;
}

const describe = (requirements: readonly Requirement[]): string =>
  `[${requirements.map((r) => `(res: ${r.resource}, q: ${r.quantity}), `).join('')}]`;

class NoVictims extends Error {
  constructor(requirements: readonly Requirement[]) {
    super(`no set of running pods found to reclaim resources: ${describe(requirements)}`);
  }
}

/** `getPodsToPreemptByDistance`, with upstream's swap-remove so ties resolve the same way. */
function byDistance(candidates: readonly KObject[], requirements: Requirement[]): KObject[] {
  const pods = [...candidates];
  const chosen: KObject[] = [];
  let missing = requirements;
  while (missing.length > 0) {
    if (pods.length === 0) throw new NoVictims(missing);
    let best = missing.length + 1;
    let bestIndex = 0;
    pods.forEach((pod, i) => {
      const d = distance(missing, pod);
      if (d < best || (d === best && smallerRequest(pod, pods[bestIndex] as KObject))) {
        best = d;
        bestIndex = i;
      }
    });
    const victim = pods[bestIndex] as KObject;
    missing = subtract(missing, [victim]);
    chosen.push(victim);
    pods[bestIndex] = pods[pods.length - 1] as KObject;
    pods.pop();
  }
  return chosen;
}

/**
 * `getPodsToPreempt`: the pods to evict so `requirements` are met, or the kubelet's error text when
 * no set of active pods would free enough.
 */
export function podsToPreempt(
  preemptor: KObject,
  active: readonly KObject[],
  requirements: Requirement[],
): { victims: KObject[] } | { error: string } {
  const byClass = {
    BestEffort: [] as KObject[],
    Burstable: [] as KObject[],
    Guaranteed: [] as KObject[],
  };
  for (const pod of active) if (preemptable(preemptor, pod)) byClass[qosClassOf(pod)].push(pod);
  const { BestEffort: bestEffort, Burstable: burstable, Guaranteed: guaranteed } = byClass;
  try {
    const unmet = subtract(requirements, [...bestEffort, ...burstable, ...guaranteed]);
    if (unmet.length > 0) throw new NoVictims(unmet);
    // The fewest Guaranteed pods needed even if every other pod went, then the fewest Burstable,
    // then whatever BestEffort pods are still needed.
    const guaranteedOut = byDistance(
      guaranteed,
      subtract(requirements, [...bestEffort, ...burstable]),
    );
    const burstableOut = byDistance(
      burstable,
      subtract(requirements, [...bestEffort, ...guaranteedOut]),
    );
    const bestEffortOut = byDistance(
      bestEffort,
      subtract(requirements, [...burstableOut, ...guaranteedOut]),
    );
    return { victims: [...bestEffortOut, ...burstableOut, ...guaranteedOut] };
  } catch (error) {
    if (error instanceof NoVictims) return { error: error.message };
    throw error;
  }
}
