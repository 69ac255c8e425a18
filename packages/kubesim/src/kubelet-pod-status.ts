/**
 * Pod status as a kubelet writes it, pure and in place: container started (Running, IPs, startTime),
 * ready, restarted (restartCount+1, the old run in lastState), terminated (exit code → Succeeded or
 * Failed), a pod killed by graceful node shutdown, a pod preempted for a critical one, and a pod
 * that admission turned away.
 */
import type { KObject } from './types.js';
import { flat } from './store-meta.js';
import {
  podSpec,
  setCondition,
  type ContainerStatus,
  type PodStatus,
} from './controllers/shapes.js';

const ZERO_DIGEST = '0'.repeat(64);

const statusOf = (pod: KObject): PodStatus => (pod.status ??= {});

function setReady(status: PodStatus, ready: boolean, nowIso: string): void {
  const value = ready ? 'True' : 'False';
  const reason = ready ? undefined : 'ContainersNotReady';
  for (const type of ['Ready', 'ContainersReady']) {
    setCondition(status, { type, status: value, ...(reason ? { reason } : {}) }, nowIso);
  }
}

export function markStarted(
  pod: KObject,
  at: { nowIso: string; hostIP: string; podIP: string },
): void {
  const status = statusOf(pod);
  const previous = status.containerStatuses ?? [];
  status.phase = 'Running';
  status.hostIP = at.hostIP;
  status.podIP = at.podIP;
  status.podIPs = [{ ip: at.podIP }];
  status.startTime ??= at.nowIso;
  delete status.reason;
  delete status.message;
  setCondition(status, { type: 'PodReadyToStartContainers', status: 'True' }, at.nowIso);
  setCondition(status, { type: 'Initialized', status: 'True' }, at.nowIso);
  setReady(status, false, at.nowIso);
  status.containerStatuses = (podSpec(pod).containers ?? []).map((c): ContainerStatus => {
    const before = previous.find((p) => p.name === c.name);
    return {
      name: c.name,
      image: c.image ?? '',
      imageID: flat(`${c.image ?? ''}@sha256:${ZERO_DIGEST}`),
      containerID: flat(`containerd://${Math.random().toString(16).slice(2).padEnd(16, '0')}`),
      ready: false,
      started: true,
      restartCount: before?.restartCount ?? 0,
      state: { running: { startedAt: at.nowIso } },
      ...(before?.lastState ? { lastState: before.lastState } : {}),
    };
  });
}

export function markReady(pod: KObject, nowIso: string): void {
  const status = statusOf(pod);
  setReady(status, true, nowIso);
  for (const c of status.containerStatuses ?? []) c.ready = true;
}

/** Every container was killed (reboot, kubelet upgrade) and comes back: restartCount + 1. */
export function markRestarting(pod: KObject, nowIso: string): void {
  const status = statusOf(pod);
  setReady(status, false, nowIso);
  for (const c of status.containerStatuses ?? []) {
    const started = c.state.running?.startedAt;
    c.lastState = {
      terminated: {
        exitCode: 255,
        reason: 'Unknown',
        finishedAt: nowIso,
        ...(started ? { startedAt: started } : {}),
      },
    };
    c.restartCount += 1;
    c.ready = false;
    c.state = { running: { startedAt: nowIso } };
  }
}

export function markTerminated(
  pod: KObject,
  end: { exitCode: number; nowIso: string; reason?: string; message?: string },
): void {
  const status = statusOf(pod);
  status.phase = end.exitCode === 0 ? 'Succeeded' : 'Failed';
  setReady(status, false, end.nowIso);
  for (const c of status.containerStatuses ?? []) {
    const started = c.state.running?.startedAt;
    c.ready = false;
    c.started = false;
    c.state = {
      terminated: {
        exitCode: end.exitCode,
        reason: end.reason ?? (end.exitCode === 0 ? 'Completed' : 'Error'),
        ...(end.message ? { message: end.message } : {}),
        ...(started ? { startedAt: started } : {}),
        finishedAt: end.nowIso,
      },
    };
  }
}

/**
 * The kubelet stopped the pod for good and says why: its containers killed, the pod Failed with
 * `reason` and `message`, and a DisruptionTarget condition (TerminationByKubelet) saying so.
 */
function markEnded(
  pod: KObject,
  nowIso: string,
  why: { reason: string; message: string; disruption: string },
): void {
  markTerminated(pod, { exitCode: 137, nowIso, reason: 'Error' });
  const status = statusOf(pod);
  status.reason = why.reason;
  status.message = why.message;
  setCondition(
    status,
    {
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'TerminationByKubelet',
      message: why.disruption,
    },
    nowIso,
  );
}

/** Graceful node shutdown (`pkg/kubelet/nodeshutdown`): the pod failed and will not be restarted. */
export function markShutdown(pod: KObject, nowIso: string): void {
  const message = 'Pod was terminated in response to imminent node shutdown.';
  markEnded(pod, nowIso, { reason: 'Terminated', message, disruption: message });
}

/** Evicted to admit a critical pod (`pkg/kubelet/preemption`). */
export function markPreempted(pod: KObject, nowIso: string): void {
  markEnded(pod, nowIso, {
    reason: 'Preempting',
    message: 'Preempted in order to admit critical pod',
    disruption: 'Pod was preempted by Kubelet to accommodate a critical pod.',
  });
}

/**
 * Turned away by admission (`Kubelet.rejectPod`): Failed with the admission's reason, never
 * started, so no container statuses; the start time is when the kubelet decided.
 */
export function markRejected(
  pod: KObject,
  why: { reason: string; message: string },
  nowIso: string,
): void {
  const status = statusOf(pod);
  status.phase = 'Failed';
  status.reason = why.reason;
  status.message = `Pod was rejected: ${why.message}`;
  status.startTime ??= nowIso;
}
