/**
 * The real executor without a process per Job, on an embedded sim: the control plane creates the
 * real executor Job with an image the sim does not map (its pod "runs" on the node and stays
 * active), and this plays the container: for each new Job it runs `runExecutor` over the kube
 * adapter in this process, with the sim's host standing for the machine. A process per Job costs
 * seconds each on a busy machine; in process a 50-node roll takes seconds of wall time. Used by
 * `kubemaint rehearse` (the twin) and by the integration tests (test/support/in-process-executor.ts).
 */
import type { Sim, KObject } from '@kubemaint/kubesim';
import { R } from '@kubemaint/kubesim';
import { markTerminated } from '@kubemaint/kubesim/testing';
import { createKubeClient } from '../adapters/kube/client.js';
import { loadKubeConfig } from '../adapters/kube/client.js';
import { kubePorts } from '../adapters/kube/executor-ports.js';
import type { Clock as ExecutorClock, HostResult } from '../app/ports.js';
import { runExecutor, type ExecutorOutcome } from '../app/executor/run-executor.js';
import type { ExecutorSettings } from '../app/executor/settings.js';
import { onSimulatedNode } from '../app/executor/simulated-node.js';
import type { ControlSettings } from '../app/control/settings.js';
import { EXIT } from '../core/exit-codes.js';
import { ANN_NODE, LABEL_HOOK, LABEL_REQUEST } from '../core/names.js';
import { silentLogger } from '../log.js';
import { buildExecutorJob } from '../../templates/executor-job.js';

/** Not in the sim's image map: the Job's pod runs on its node and stays active (see jobPodRunMs). */
export const NOOP_IMAGE = 'example.invalid/kubemaint-noop:1';

/** Executor settings for the sim: its host endpoint stands for the machine, so no nsenter prefix. */
export const simExecutorSettings = onSimulatedNode;

/** The real executor Job manifest (templates/executor-job.ts) with the no-op image. */
export function inProcessJobFor(
  settings: ExecutorSettings,
  namespace: string,
): ControlSettings['jobFor'] {
  return (node, requestId) =>
    buildExecutorJob({
      node,
      requestId,
      namespace,
      image: NOOP_IMAGE,
      serviceAccountName: 'kubemaint-executor',
      rebootMethod: 'command',
      activeDeadlineSeconds: 3_600,
      ttlSecondsAfterFinished: 86_400,
      settingsJson: JSON.stringify(settings),
    }) as unknown as Record<string, unknown>;
}

/** The executor's clock on the sim's scaled time. */
export function simExecutorClock(sim: Pick<Sim, 'clock'>): ExecutorClock {
  return {
    now: () => sim.clock.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const cancel = sim.clock.after(ms, resolve);
        signal?.addEventListener('abort', () => (cancel(), resolve()), { once: true });
      }),
  };
}

export interface HostCall {
  node: string;
  argv: readonly string[];
}

export interface InProcessJobsOptions {
  namespace: string;
  /** Told of each host command before it runs (tests record what ran under which request). */
  onHostCall?: (call: HostCall) => void;
}

export interface InProcessJobs {
  outcomes: Map<string, ExecutorOutcome>;
  /** Run the executor for `job` once more, as a restarted container would. */
  rerun(job: string): Promise<ExecutorOutcome>;
  stop(): Promise<void>;
}

interface JobRun {
  node: string;
  requestId: string;
  selfPod?: string;
}

/** Watch the sim's Jobs and run each new one's executor in process, once its pod exists. */
export function runJobsInProcess(
  sim: Sim,
  settings: ExecutorSettings,
  options: InProcessJobsOptions,
): InProcessJobs {
  const { namespace } = options;
  const client = createKubeClient(loadKubeConfig(sim.kubeconfigPath));
  const clock = simExecutorClock(sim);
  const log = silentLogger();
  const outcomes = new Map<string, ExecutorOutcome>();
  const runs = new Map<string, JobRun>();
  const pending = new Set<Promise<unknown>>();
  const hostFor = (node: string) => ({
    run: (argv: readonly string[]): Promise<HostResult> => {
      options.onHostCall?.({ node, argv: [...argv] });
      if (argv[0] === 'kubemaint-sim-host' && argv[1] === 'reboot') sim.admin.reboot(node);
      else if (argv[0] === 'kubemaint-sim-host' && argv[1] === 'upgrade' && argv[2])
        sim.admin.upgrade(node, argv[2]);
      else return Promise.resolve({ exitCode: 127, stderr: `unknown host command ${argv[0]}` });
      return Promise.resolve({ exitCode: 0, stderr: '' });
    },
    signal: () => undefined,
  });
  const execute = (name: string, run: JobRun): Promise<ExecutorOutcome> => {
    const ports = {
      ...kubePorts(client, log, clock, settings.namespace),
      host: hostFor(run.node),
      clock,
      log,
    };
    const job = runExecutor(ports, {
      node: run.node,
      requestId: run.requestId,
      settings,
      job: name,
      ...(run.selfPod ? { selfPod: run.selfPod } : {}),
    })
      // As `kubemaint executor` does: an error it did not expect ends the container with exit 1.
      .catch((error: unknown): ExecutorOutcome => ({
        exitCode: EXIT.unexpected,
        message: error instanceof Error ? error.message : String(error),
      }))
      .then((outcome) => {
        outcomes.set(name, outcome);
        // The container exits with the executor's code; a non-zero one fails the Job (backoffLimit
        // 0). Exit 0 leaves the pod running until the reboot stops it, as a real pod whose host
        // goes down a moment after `systemctl reboot` returned.
        if (outcome.exitCode !== 0 && run.selfPod) exitPod(sim, run.selfPod, outcome);
        return outcome;
      });
    pending.add(job);
    void job.finally(() => pending.delete(job));
    return job;
  };
  // New Jobs and their pods as the store's watches tell them. A list of every Job and pod each 20 ms
  // copied them all: a thousand-node campaign's Jobs made that a tenth of its bench's time.
  const unstarted = new Map<string, JobRun>();
  const podOf = new Map<string, string>();
  const seeJob = (job: KObject): void => {
    const name = job.metadata.name ?? '';
    if (job.metadata.namespace !== namespace || runs.has(name)) return;
    // Hook Jobs (ADR 0021) run their own image (the sim's image map), not the executor.
    if (job.metadata.labels?.[LABEL_HOOK]) return;
    // The label may hold only a hash of a long name; the annotation holds the name.
    const node = job.metadata.annotations?.[ANN_NODE];
    const requestId = job.metadata.labels?.[LABEL_REQUEST];
    if (!node || !requestId) return;
    unstarted.set(name, { node, requestId });
    podOf.delete(name); // a pod of an earlier Job of the same name is not this one's
  };
  // Only the pods of Jobs waiting to start are kept, and only until they start or go.
  const ownerOf = (pod: KObject): string | undefined =>
    pod.metadata.namespace === namespace
      ? pod.metadata.ownerReferences?.find((o) => o.kind === 'Job')?.name
      : undefined;
  const seePod = (pod: KObject): void => {
    const owner = ownerOf(pod);
    if (owner !== undefined && unstarted.has(owner) && !podOf.has(owner))
      podOf.set(owner, pod.metadata.name ?? '');
  };
  const unwatch = [
    sim.store.watch(R.jobs, (event) => {
      if (event.type === 'ADDED') seeJob(event.object);
      // One deleted before its pod came never starts, as a list would no longer have shown it.
      else if (event.type === 'DELETED' && event.object.metadata.namespace === namespace) {
        unstarted.delete(event.object.metadata.name ?? '');
        podOf.delete(event.object.metadata.name ?? '');
      }
    }),
    sim.store.watch(R.pods, (event) => {
      if (event.type === 'ADDED') seePod(event.object);
      else if (event.type === 'DELETED') {
        const owner = ownerOf(event.object);
        if (owner !== undefined && podOf.get(owner) === event.object.metadata.name)
          podOf.delete(owner);
      }
    }),
  ];
  for (const job of sim.store.list(R.jobs, { namespace })) seeJob(job);
  for (const pod of sim.store.list(R.pods, { namespace })) seePod(pod);
  // Started off the store's own call stack (a watch is told inside the write that made the object).
  const timer = setInterval(() => {
    for (const [name, job] of unstarted) {
      // The container starts once its pod exists: the executor needs its own pod's name.
      const pod = podOf.get(name);
      if (pod === undefined) continue;
      unstarted.delete(name);
      podOf.delete(name);
      const run = { ...job, selfPod: `${namespace}/${pod}` };
      runs.set(name, run);
      void execute(name, run);
    }
  }, 20);
  return {
    outcomes,
    rerun: (name) => {
      const run = runs.get(name);
      if (!run) throw new Error(`no executor ran for Job ${name}`);
      return execute(name, run);
    },
    async stop() {
      clearInterval(timer);
      for (const stop of unwatch) stop();
      await Promise.allSettled([...pending]);
    },
  };
}

function exitPod(sim: Sim, pod: string, outcome: ExecutorOutcome): void {
  const [namespace, name] = pod.split('/');
  sim.store.mutate(R.pods, namespace, name ?? '', (p) =>
    markTerminated(p, {
      exitCode: outcome.exitCode,
      nowIso: sim.clock.now().toISOString(),
      message: outcome.message,
    }),
  );
}

export function podOfJob(sim: Sim, job: string, namespace: string): KObject | undefined {
  return sim.store
    .list(R.pods, { namespace })
    .find((p) => p.metadata.ownerReferences?.some((o) => o.kind === 'Job' && o.name === job));
}
