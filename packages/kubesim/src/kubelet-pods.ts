/**
 * One node's containers: pods bound to the node start (Pending → Running after `podStartMs`, Ready
 * after `podReadyMs`), mapped images run as child processes through the jobs runner, unmapped Job pods
 * "run" for `jobPodRunMs`, deleted pods stop within their grace period and are then removed, and
 * restarts (reboot, kubelet upgrade) bump restartCount. Reads and writes go through the kubelet's API.
 */
import type { KObject } from './types.js';
import type { KubeletApi, KubeletContext } from './kubelet-api.js';
import { isPodTerminal, podSpec, type Container } from './controllers/shapes.js';
import type { ContainerExit, ContainerProcess, JobsRunner } from './jobs-runner.js';
import { legacyEvent } from './events.js';
import { markReady, markRestarting, markStarted, markTerminated } from './kubelet-pod-status.js';

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
      const fresh = runOf(uid);
      if (pod.status?.['phase'] === 'Running') {
        // Adopted (seeded by a scenario, or the kubelet restarted): already running, maybe not ready.
        const ready = (
          pod.status['conditions'] as { type: string; status: string }[] | undefined
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
        if ((podSpec(pod).restartPolicy ?? 'Always') === 'Never') {
          write(pod, (p) =>
            markTerminated(p, { exitCode: 137, nowIso: nowIso(), reason: 'Error' }),
          );
          runs.delete(pod.metadata.uid ?? '');
          continue;
        }
        const restarted = write(pod, (p) => markRestarting(p, nowIso()));
        if (restarted) runContainers(restarted, run);
      }
    },
  };
}
