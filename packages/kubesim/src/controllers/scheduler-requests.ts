/**
 * What a pod asks of a node, as the scheduler and the kubelet count it: resource quantities
 * (`500m`, `1.5`, `128Mi`, `1e3`) read exactly, a pod's CPU and memory requests
 * (`resource.GetResourceRequest`: the containers' sum, or the largest init container if more, plus
 * the pod's overhead; pod-level `spec.resources` when set) and its QoS class (`qos.GetPodQOS`).
 * A container with limits but no requests asks for its limits, as the apiserver's defaulting makes it.
 */
import type { KObject } from '../types.js';

/** The resources the sim's scheduler and kubelets account for. */
export type CountedResource = 'pods' | 'cpu' | 'memory';

export interface Requests {
  /** Millicores (`Quantity.MilliValue()`). */
  milliCPU: number;
  /** Bytes (`Quantity.Value()`). */
  memory: number;
}

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

type ResourceList = Record<string, unknown>;
interface Resources {
  requests?: ResourceList;
  limits?: ResourceList;
}
interface ContainerResources {
  resources?: Resources;
  restartPolicy?: string;
}

const DECIMAL: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?))$/;

/**
 * A quantity scaled by 10^`scale` and rounded up, as `Quantity.Value()` (scale 0) and
 * `MilliValue()` (scale 3) give it; undefined when it is not a quantity. Exact: `0.1` is 100m,
 * never 101m, because the digits are kept as an integer and a power of ten.
 */
export function quantityValue(input: unknown, scale: 0 | 3): number | undefined {
  const text = typeof input === 'number' ? String(input) : input;
  if (typeof text !== 'string') return undefined;
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent, suffix = ''] = match;
  if (whole === '' && fraction === '') return undefined;
  const digits = BigInt(`${whole}${fraction}` || '0');
  let power10 = scale - fraction.length;
  let power2 = 0;
  if (exponent) power10 += Number(exponent.slice(1));
  else if (suffix in BINARY) power2 = BINARY[suffix] ?? 0;
  else power10 += DECIMAL[suffix] ?? 0;
  let value = digits * 2n ** BigInt(power2);
  if (power10 >= 0) value *= 10n ** BigInt(power10);
  else {
    const divisor = 10n ** BigInt(-power10);
    value = (value + divisor - 1n) / divisor;
  }
  return sign === '-' ? -Number(value) : Number(value);
}

const NONE: Requests = { milliCPU: 0, memory: 0 };

/** A container's requests, its limits standing in for requests it does not state. */
function containerRequests(resources: Resources | undefined): Requests {
  const requests = resources?.requests ?? {};
  const limits = resources?.limits ?? {};
  const cpu = requests['cpu'] ?? limits['cpu'];
  const memory = requests['memory'] ?? limits['memory'];
  return {
    milliCPU: quantityValue(cpu, 3) ?? 0,
    memory: quantityValue(memory, 0) ?? 0,
  };
}

const add = (a: Requests, b: Requests): Requests => ({
  milliCPU: a.milliCPU + b.milliCPU,
  memory: a.memory + b.memory,
});
const max = (a: Requests, b: Requests): Requests => ({
  milliCPU: Math.max(a.milliCPU, b.milliCPU),
  memory: Math.max(a.memory, b.memory),
});

const containersOf = (pod: KObject, field: 'containers' | 'initContainers') =>
  (pod.spec?.[field] ?? []) as ContainerResources[];

/** `resource.PodRequests`: what the pod takes from its node's allocatable CPU and memory. */
export function podRequests(pod: KObject): Requests {
  const podLevel = pod.spec?.['resources'] as Resources | undefined;
  let total: Requests;
  if (podLevel?.requests || podLevel?.limits) {
    total = containerRequests(podLevel);
  } else {
    // Sidecars (init containers that restart Always) run beside the app containers: they add up.
    // A plain init container runs alone before them: the pod needs its requests only if larger.
    let running = NONE;
    let initPeak = NONE;
    for (const init of containersOf(pod, 'initContainers')) {
      const own = containerRequests(init.resources);
      if (init.restartPolicy === 'Always') running = add(running, own);
      else initPeak = max(initPeak, add(running, own));
    }
    for (const c of containersOf(pod, 'containers'))
      running = add(running, containerRequests(c.resources));
    total = max(running, initPeak);
  }
  const overhead = pod.spec?.['overhead'] as ResourceList | undefined;
  return overhead ? add(total, containerRequests({ requests: overhead })) : total;
}

/** `resource.GetResourceRequest`: a pod counts 1 against `pods`. */
export function resourceRequest(pod: KObject, resource: CountedResource): number {
  if (resource === 'pods') return 1;
  const requests = podRequests(pod);
  return resource === 'cpu' ? requests.milliCPU : requests.memory;
}

/**
 * `qos.GetPodQOS`: the class the apiserver wrote, else computed. BestEffort when no container
 * requests or limits CPU or memory; Guaranteed when every container limits both and requests
 * equal limits; Burstable otherwise.
 */
export function qosClassOf(pod: KObject): QosClass {
  const written = (pod.status as { qosClass?: string } | undefined)?.qosClass;
  if (written === 'Guaranteed' || written === 'Burstable' || written === 'BestEffort')
    return written;
  const requested = new Map<string, number>();
  const limited = new Map<string, number>();
  let guaranteed = true;
  for (const c of [...containersOf(pod, 'initContainers'), ...containersOf(pod, 'containers')]) {
    for (const name of ['cpu', 'memory']) {
      const scale = name === 'cpu' ? 3 : 0;
      const limit = quantityValue(c.resources?.limits?.[name], scale) ?? 0;
      const request = quantityValue(c.resources?.requests?.[name], scale) ?? limit;
      if (request > 0) requested.set(name, (requested.get(name) ?? 0) + request);
      if (limit > 0) limited.set(name, (limited.get(name) ?? 0) + limit);
      else guaranteed = false;
    }
  }
  if (requested.size === 0 && limited.size === 0) return 'BestEffort';
  if (
    guaranteed &&
    requested.size === limited.size &&
    [...requested].every(([name, value]) => limited.get(name) === value)
  ) {
    return 'Guaranteed';
  }
  return 'Burstable';
}
