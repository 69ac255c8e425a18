/**
 * One node's containers: pods bound to the node pass admission (kubelet-admission.ts: a pod that
 * does not fit ends Failed with the kubelet's reason; a critical one preempts others) and start
 * (Pending → Running after `podStartMs`, Ready after `podReadyMs`), mapped images run as child
 * processes through the jobs runner, unmapped Job pods "run" for `jobPodRunMs`, deleted pods stop
 * within their grace period and are then removed, and restarts (reboot, kubelet upgrade) bump
 * restartCount. Reads and writes go through the kubelet's API.
 */
import type { KObject } from './types.js';
import type { KubeletApi, KubeletContext } from './kubelet-api.js';
import { isPodTerminal, podSpec, type Container } from './controllers/shapes.js';
import type { ContainerExit, ContainerProcess, JobsRunner } from './jobs-runner.js';
import { legacyEvent } from './events.js';
import {
  markPreempted,
  markReady,
  markRejected,
  markRestarting,
  markStarted,
  markTerminated,
} from './kubelet-pod-status.js';
import { admitPod, type Admission } from './kubelet-admission.js';

/** Annotation for unmapped pods: the exit code their container "returns" (Job pods). */
export const EXIT_CODE_ANNOTATION = 'sim.kubemaint.io/exit-code';

interface PodRun {
  timers: (() => void)[];
  process?: ContainerProcess;
  terminating: boolean;
}

export interface NodePods {
  /** A watch event for a pod bound to this node. */
  sync(pod: KObject): void;
  forget(uid: string): void;
  /** Containers are gone (node down, kubelet restarting): cancel everything, kill processes. */
  killAll(): void;
  /** The kubelet is back: every container of every live pod starts again. */
  restartAll(pods: readonly KObject[]): void;
}

/** Image pulls as the kubelet reports them: `Always` pulls, anything else finds the image present. */
function pullEvents(c: Container): [string, string][] {
  const image = c.image ?? '';
  const always =
    c.imagePullPolicy === 'Always' || (!c.imagePullPolicy && /:latest$|^[^:]*$/.test(image));
  if (!always) return [['Pulled', `Container image "${image}" already present on machine`]];
  return [
    ['Pulling', `Pulling image "${image}"`],
    [
      'Pulled',
      `Successfully pulled image "${image}" in 1s (1s including waiting). Image size: 0 bytes.`,
    ],
  ];
}

export function createNodePods(
  ctx: KubeletContext,
  api: KubeletApi,
  node: { name: string; hostIP: () => string; nextPodIP: () => string },
  runner: JobsRunner,
): NodePods {
  const { clock, delays } = ctx;
  const runs = new Map<string, PodRun>();
  const nowIso = (): string => clock.now().toISOString();
  const write = (pod: KObject, fn: (p: KObject) => void): KObject | undefined =>
    api.writePodStatus(pod, fn);
  const runOf = (uid: string): PodRun => {
    let run = runs.get(uid);
    if (!run) runs.set(uid, (run = { timers: [], terminating: false }));
    return run;
  };
  const later = (run: PodRun, ms: number, fn: () => void): void =>
    void run.timers.push(clock.after(ms, fn));
  const record = (pod: KObject, reason: string, message: string): void =>
    api.recordEvent(
      legacyEvent(
        { regarding: pod, reason, message, type: 'Warning', component: 'kubelet', host: node.name },
        clock.now(),
      ),
    );
  /** What the real kubelet records about a pod's containers (pkg/kubelet/events). */
  const recordContainers = (pod: KObject, events: (c: Container) => [string, string][]): void => {
    for (const c of podSpec(pod).containers ?? []) {
      for (const [reason, message] of events(c)) {
        api.recordEvent(
          legacyEvent(
            {
              regarding: pod,
              reason,
              message,
              component: 'kubelet',
              host: node.name,
              fieldPath: `spec.containers{${c.name}}`,
            },
            clock.now(),
          ),
        );
      }
    }
  };
  const cancel = (run: PodRun): void => {
    for (const stop of run.timers.splice(0)) stop();
  };

  const onExit = (pod: KObject, exit: ContainerExit): void => {
    const run = runs.get(pod.metadata.uid ?? '');
    if (!run) return;
    run.process = undefined;
    if (run.terminating) return remove(pod);
    const policy = podSpec(pod).restartPolicy ?? 'Always';
    if (policy === 'Always' || (policy === 'OnFailure' && exit.exitCode !== 0)) {
      write(pod, (p) => markRestarting(p, nowIso()));
      later(run, delays.podStartMs, () => runContainers(pod, run));
      return;
    }
    cancel(run);
    write(pod, (p) => markTerminated(p, { ...exit, nowIso: nowIso() }));
  };

  /** A running pod whose containers are gone: killed (137) under Never, else started again. */
  const restartLost = (pod: KObject, run: PodRun): void => {
    if ((podSpec(pod).restartPolicy ?? 'Always') === 'Never') {
      write(pod, (p) => markTerminated(p, { exitCode: 137, nowIso: nowIso(), reason: 'Error' }));
      runs.delete(pod.metadata.uid ?? '');
      return;
    }
    const restarted = write(pod, (p) => markRestarting(p, nowIso()));
    if (restarted) runContainers(restarted, run);
  };

  const runContainers = (pod: KObject, run: PodRun): void => {
    const container: Container | undefined = podSpec(pod).containers?.[0];
    if (container && runner.mappingFor(container.image)) {
      const fresh = api.pod(pod.metadata.namespace, pod.metadata.name ?? '') ?? pod;
      run.process = runner.start(fresh, container, (exit) => onExit(pod, exit));
    } else if ((podSpec(pod).restartPolicy ?? 'Always') !== 'Always') {
      const code = Number(pod.metadata.annotations?.[EXIT_CODE_ANNOTATION] ?? 0);
      later(run, delays.jobPodRunMs, () =>
        onExit(pod, { exitCode: Number.isFinite(code) ? code : 1 }),
      );
    }
    later(run, delays.podReadyMs, () => write(pod, (p) => markReady(p, nowIso())));
  };

  const start = (pod: KObject, run: PodRun): void => {
    const started = write(pod, (p) =>
      markStarted(p, { nowIso: nowIso(), hostIP: node.hostIP(), podIP: node.nextPodIP() }),
    );
    if (!started || started.metadata.deletionTimestamp) return;
    recordContainers(started, (c) => [
      ...pullEvents(c),
      ['Created', `Created container: ${c.name}`],
      ['Started', `Started container ${c.name}`],
    ]);
    runContainers(started, run);
  };

  const remove = (pod: KObject): void => {
    const run = runs.get(pod.metadata.uid ?? '');
    if (run) cancel(run);
    runs.delete(pod.metadata.uid ?? '');
    api.deletePod(pod);
  };

  /** `GetActivePods`: what this kubelet admitted and still runs, but `uid`. */
  const activePods = (uid: string): KObject[] =>
    api.pods().filter((p) => {
      const other = p.metadata.uid ?? '';
      return other !== uid && runs.has(other) && !isPodTerminal(p);
    });

  /** Stopped for good to make room for a critical pod: Failed, `Preempting`. */
  const preempt = (victim: KObject): void => {
    const uid = victim.metadata.uid ?? '';
    record(victim, 'Preempting', 'Preempted in order to admit critical pod');
    if (victim.status?.['phase'] === 'Running') {
      recordContainers(victim, (c) => [['Killing', `Stopping container ${c.name}`]]);
    }
    const run = runs.get(uid);
    if (run) {
      cancel(run);
      run.process?.kill((podSpec(victim).terminationGracePeriodSeconds ?? 30) * 1_000);
      runs.delete(uid);
    }
    // A victim already being deleted comes back through `sync` and is removed as any other.
    write(victim, (p) => markPreempted(p, nowIso()));
  };

  /** The kubelet's admission of a pod new to it; false when it turned the pod away. */
  const admit = (pod: KObject): boolean => {
    const current = api.node();
    const verdict: Admission = current
      ? admitPod(pod, current, activePods(pod.metadata.uid ?? ''))
      : { admit: false, reason: 'InvalidNodeInfo', message: 'Kubelet cannot get node info.' };
    if (!verdict.admit) {
      record(pod, verdict.reason, verdict.message);
      write(pod, (p) => markRejected(p, verdict, nowIso()));
      return false;
    }
    for (const victim of verdict.preempt) preempt(victim);
    return true;
  };

  const terminate = (pod: KObject, run: PodRun): void => {
    run.terminating = true;
    cancel(run);
    if (pod.status?.['phase'] === 'Running') {
      recordContainers(pod, (c) => [['Killing', `Stopping container ${c.name}`]]);
    }
    const graceMs = (pod.metadata.deletionGracePeriodSeconds ?? 30) * 1_000;
    if (run.process) {
      run.process.kill(graceMs);
      later(run, graceMs, () => remove(pod));
    } else {
      later(run, Math.min(graceMs, delays.podStopMs), () => remove(pod));
    }
  };

  return {
    sync(pod) {
      const uid = pod.metadata.uid ?? '';
      const run = runs.get(uid);
      if (pod.metadata.deletionTimestamp) {
        if (!run?.terminating) terminate(pod, run ?? runOf(uid));
        return;
      }
      if (isPodTerminal(pod)) {
        if (run && !run.process) {
          cancel(run);
          runs.delete(uid);
        }
        return;
      }
      if (run) return;
      const adopted = pod.status?.['phase'] === 'Running';
      if (!adopted && !admit(pod)) return;
      const fresh = runOf(uid);
      if (adopted) {
        const container: Container | undefined = podSpec(pod).containers?.[0];
        // A local process cannot be adopted: it died with the sim that started it (a sim restarted
        // from its saved state). Its container ended, as on a kubelet that lost its runtime.
        if (container && runner.mappingFor(container.image)) return restartLost(pod, fresh);
        // Adopted (seeded by a scenario, or the kubelet restarted): already running, maybe not ready.
        const ready = (
          pod.status?.['conditions'] as { type: string; status: string }[] | undefined
        )?.some((c) => c.type === 'Ready' && c.status === 'True');
        if (!ready)
          later(fresh, delays.podReadyMs, () => write(pod, (p) => markReady(p, nowIso())));
        return;
      }
      later(fresh, delays.podStartMs, () => start(pod, fresh));
    },
    forget(uid) {
      const run = runs.get(uid);
      if (!run) return;
      cancel(run);
      run.process?.kill(0);
      runs.delete(uid);
    },
    killAll() {
      for (const [uid, run] of runs) {
        cancel(run);
        run.terminating = false;
        const process = run.process;
        run.process = undefined;
        process?.kill(0);
        runs.delete(uid);
      }
    },
    restartAll(pods) {
      for (const pod of pods) {
        if (isPodTerminal(pod)) continue;
        const run = runOf(pod.metadata.uid ?? '');
        if (pod.metadata.deletionTimestamp) {
          remove(pod);
          continue;
        }
        if (pod.status?.['phase'] !== 'Running') {
          later(run, delays.podStartMs, () => start(pod, run));
          continue;
        }
        restartLost(pod, run);
      }
    },
  };
}
