/**
 * A kubelet's admission of a pod bound to its node (pkg/kubelet/lifecycle/predicate.go), pure: the
 * pod's OS, then the scheduler's own fit check (scheduler-fit.ts: pod count, CPU and memory requests
 * against the node's allocatable given its active pods, node selector and affinity) and the node's
 * NoExecute taints (the only effect a kubelet minds). A pod that does not fit is rejected with the
 * first reason, in the kubelet's words (`OutOfcpu`, `Node didn't have enough resource: cpu,
 * requested: 500, used: 7800, capacity: 8000`). A critical pod short only of resources is admitted
 * by preempting others instead (kubelet-preemption.ts).
 */
import type { KObject } from './types.js';
import {
  insufficientResources,
  matchesNodeAffinity,
  untoleratedTaint,
  usageOf,
  type Insufficient,
} from './controllers/scheduler-fit.js';
import { isCriticalPod, podsToPreempt } from './kubelet-preemption.js';

export type Admission =
  { admit: true; preempt: KObject[] } | { admit: false; reason: string; message: string };

type Failure =
  { resource: Insufficient } | { predicate: string; description: string; resource?: undefined };

/** The OS the simulated nodes run (the kubelet compares with its own `runtime.GOOS`). */
const NODE_OS = 'linux';

function rejection(failure: Failure): Admission {
  if (failure.resource) {
    const r = failure.resource;
    return {
      admit: false,
      reason: `OutOf${r.resource}`,
      message: `Node didn't have enough resource: ${r.resource}, requested: ${r.requested}, used: ${r.used}, capacity: ${r.capacity}`,
    };
  }
  return {
    admit: false,
    reason: failure.predicate,
    message: `Predicate ${failure.predicate} failed: ${failure.description}`,
  };
}

/** Whether the kubelet of `node` runs `pod`, given the pods it already admitted and still runs. */
export function admitPod(pod: KObject, node: KObject, active: readonly KObject[]): Admission {
  const osLabel = pod.metadata.labels?.['kubernetes.io/os'];
  if (osLabel !== undefined && osLabel !== NODE_OS) {
    return {
      admit: false,
      reason: 'PodOSSelectorNodeLabelDoesNotMatch',
      message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    };
  }
  const os = (pod.spec?.['os'] as { name?: string } | undefined)?.name;
  if (os !== undefined && os !== NODE_OS) {
    return {
      admit: false,
      reason: 'PodOSNotSupported',
      message: "Failed to admit pod as the OS field doesn't match node OS",
    };
  }
  const failures: Failure[] = insufficientResources(pod, node, usageOf(active)).map((resource) => ({
    resource,
  }));
  if (!matchesNodeAffinity(pod, node)) {
    failures.push({
      predicate: 'NodeAffinity',
      description: "node(s) didn't match Pod's node affinity/selector",
    });
  }
  if (untoleratedTaint(pod, node, ['NoExecute'])) {
    failures.push({
      predicate: 'TaintToleration',
      description: "node(s) had taints that the pod didn't tolerate",
    });
  }
  const first = failures[0];
  if (!first) return { admit: true, preempt: [] };
  if (!isCriticalPod(pod)) return rejection(first);
  // A critical pod is not turned away for resources, only for what preemption cannot fix.
  const other = failures.find((f) => !f.resource);
  if (other) return rejection(other);
  const requirements = failures.flatMap((f) =>
    f.resource
      ? [
          {
            resource: f.resource.resource,
            quantity: f.resource.requested - (f.resource.capacity - f.resource.used),
          },
        ]
      : [],
  );
  const found = podsToPreempt(pod, active, requirements);
  if ('error' in found) {
    return {
      admit: false,
      reason: 'UnexpectedAdmissionError',
      message: `Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: ${found.error}`,
    };
  }
  return { admit: true, preempt: found.victims };
}
