/**
 * The whole loop on the sim without a process per Job: the control plane creates the real executor
 * Job manifest with an image the sim does not map (its pod "runs" on the node and stays active), and
 * this harness plays the container: for each new Job it runs the real executor (runExecutor over the
 * kube adapter) in process, with the sim's host standing for the machine. Real executor processes
 * cost seconds each on a busy machine; in process the 50-node roll takes seconds of wall time.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../src/adapters/kube/client.js';
import { kubePorts } from '../../src/adapters/kube/executor-ports.js';
import type { Clock as ExecutorClock, HostResult } from '../../src/app/ports.js';
import { runExecutor, type ExecutorOutcome } from '../../src/app/executor/run-executor.js';
import type { ExecutorSettings } from '../../src/app/executor/settings.js';
import { DEFAULT_EXECUTOR_SETTINGS as DEFAULT_SETTINGS } from '../../src/compose/executor-settings.js';
import type { ControlSettings } from '../../src/app/control/settings.js';
import { silentLogger } from '../../src/log.js';
import { EXIT } from '../../src/core/exit-codes.js';
import { requestsByNode } from '../../src/adapters/kube/control-cluster.js';
import {
  decodeRequest,
  encodeRequest,
  GROUP,
  REQUESTS,
  type StoredRequest,
} from '../../src/adapters/kube/request-codec.js';
import { ANN_NODE, LABEL_HOOK, LABEL_REQUEST } from '../../src/core/names.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import type { Sim } from '@kubemaint/kubesim';
import { R, type AuditEntry, type KObject } from '@kubemaint/kubesim';
import { markTerminated } from '@kubemaint/kubesim/testing';
import { buildExecutorJob } from '../../templates/executor-job.js';

export const NAMESPACE = 'kubemaint';
/** Not in the sim's image map: the Job's pod runs on its node and stays active (see jobPodRunMs). */
export const NOOP_IMAGE = 'example.invalid/kubemaint-noop:1';

/** Executor settings for the sim: its host endpoint stands for the machine, so no nsenter prefix. */
export function executorSettings(concurrency: number): ExecutorSettings {
  return {
    ...DEFAULT_SETTINGS,
    hostPrefix: [],
    reboot: { method: 'command', command: ['kubemaint-sim-host', 'reboot'] },
    upgrade: { command: ['kubemaint-sim-host', 'upgrade', '{{version}}'], restartCommand: [] },
    lock: { concurrency, ttlMs: 2 * 3_600_000 },
    progressIntervalMs: 1_000,
    drain: {
      ...DEFAULT_SETTINGS.drain,
      timeoutMs: 2 * 3_600_000,
      deleteEmptyDirData: true,
      evictionRetryMs: 1_000,
    },
  };
}

/** The real executor Job manifest (templates/executor-job.ts) with the no-op image. */
export function realJobFor(settings: ExecutorSettings): ControlSettings['jobFor'] {
  return (node, requestId) =>
    buildExecutorJob({
      node,
      requestId,
      namespace: NAMESPACE,
      image: NOOP_IMAGE,
      serviceAccountName: 'kubemaint-executor',
      rebootMethod: 'command',
      activeDeadlineSeconds: 3_600,
      ttlSecondsAfterFinished: 86_400,
      settingsJson: JSON.stringify(settings),
    }) as unknown as Record<string, unknown>;
}

/** The executor's clock on the sim's scaled time. */
export function simExecutorClock(sim: Sim): ExecutorClock {
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
  /** The request on the node when the command was issued. */
  request: MaintenanceRequest | undefined;
}

export interface InProcessJobs {
  outcomes: Map<string, ExecutorOutcome>;
  hostCalls: HostCall[];
  /** Run the executor for `job` once more, as a restarted container would. */
  rerun(job: string): Promise<ExecutorOutcome>;
  stop(): Promise<void>;
}

interface JobRun {
  node: string;
  requestId: string;
  selfPod?: string;
}

/** The store key of kubemaint's MaintenanceRequest objects in the sim (ADR 0012). */
export const R_REQUESTS = `${REQUESTS}.${GROUP}`;

const storedOf = (object: KObject): StoredRequest | undefined => {
  const decoded = decodeRequest(object);
  return decoded.ok ? decoded.stored : undefined;
};

const storedRequests = (objects: readonly KObject[]): StoredRequest[] =>
  objects.map(storedOf).filter((s): s is StoredRequest => s !== undefined);

/**
 * The node's request as the control plane reads it (its active one, else its newest), straight from
 * the sim's store: synchronous, so a host command can record what it ran under.
 */
export const requestOn = (sim: Sim, node: string): MaintenanceRequest | undefined =>
  requestsByNode(storedRequests(sim.store.list(R_REQUESTS, { namespace: NAMESPACE }))).get(node)
    ?.request;

/** A request by id, straight from the sim's store. */
export const requestById = (sim: Sim, id: string): MaintenanceRequest | undefined => {
  const object = sim.store.get(R_REQUESTS, NAMESPACE, id);
  return object ? storedOf(object)?.request : undefined;
};

/**
 * Change a request's status in the sim's store at once, as a write the control plane did not make
 * (the executor's, or a test's interleaving): `change` gets the request as stored and returns it new.
 */
export function rewriteRequest(
  sim: Sim,
  id: string,
  change: (request: MaintenanceRequest) => MaintenanceRequest,
): void {
  const before = requestById(sim, id);
  if (!before) throw new Error(`no request ${id} in the sim`);
  const { status } = encodeRequest({ ...change(before), id }, NAMESPACE);
  sim.store.mutate(
    R_REQUESTS,
    NAMESPACE,
    id,
    (o) => {
      o.status = status;
    },
    { subresource: 'status' },
  );
}

/** Watch the sim's Jobs (every 20 ms of wall time) and run each new one's executor in process. */
export function runJobsInProcess(sim: Sim, settings: ExecutorSettings): InProcessJobs {
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  const client = createKubeClient(kc);
  const clock = simExecutorClock(sim);
  const log = silentLogger();
  const outcomes = new Map<string, ExecutorOutcome>();
  const hostCalls: HostCall[] = [];
  const runs = new Map<string, JobRun>();
  const pending = new Set<Promise<unknown>>();
  const hostFor = (node: string) => ({
    run: (argv: readonly string[]): Promise<HostResult> => {
      hostCalls.push({ node, argv: [...argv], request: requestOn(sim, node) });
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
  const timer = setInterval(() => {
    for (const job of sim.store.list(R.jobs, { namespace: NAMESPACE })) {
      const name = job.metadata.name ?? '';
      if (runs.has(name)) continue;
      // Hook Jobs (ADR 0021) run their own image (the sim's image map), not the executor.
      if (job.metadata.labels?.[LABEL_HOOK]) continue;
      // The label may hold only a hash of a long name; the annotation holds the name.
      const node = job.metadata.annotations?.[ANN_NODE];
      const requestId = job.metadata.labels?.[LABEL_REQUEST];
      if (!node || !requestId) continue;
      // The container starts once its pod exists: the executor needs its own pod's name.
      const pod = podOfJob(sim, name);
      if (!pod) continue;
      const run = { node, requestId, selfPod: `${NAMESPACE}/${pod.metadata.name ?? ''}` };
      runs.set(name, run);
      void execute(name, run);
    }
  }, 20);
  return {
    outcomes,
    hostCalls,
    rerun: (name) => {
      const run = runs.get(name);
      if (!run) throw new Error(`no executor ran for Job ${name}`);
      return execute(name, run);
    },
    async stop() {
      clearInterval(timer);
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

export function podOfJob(sim: Sim, job: string): KObject | undefined {
  return sim.store
    .list(R.pods, { namespace: NAMESPACE })
    .find((p) => p.metadata.ownerReferences?.some((o) => o.kind === 'Job' && o.name === job));
}

/**
 * Whether kubemaint disrupts the node now (DESIGN §5.1: cordoned, drained or rebooting by kubemaint):
 * cordoned by it, or past the host command. A request marked running whose executor has not taken a
 * slot yet has touched nothing.
 */
export function disruptedByKubemaint(
  node: KObject,
  request: MaintenanceRequest | undefined,
): boolean {
  if (!request) return false;
  if (request.state === 'verifying') return true;
  const cordonedByUs =
    request.cordonedByUs === true &&
    request.wasCordoned !== true &&
    node.spec?.['unschedulable'] === true;
  return cordonedByUs && (request.state === 'running' || request.state === 'failed');
}

/** `disruptedByKubemaint` for a node of the sim, with its request as the control plane reads it. */
export const disruptedNow = (sim: Sim, node: string): boolean => {
  const object = sim.store.get(R.nodes, undefined, node);
  return object !== undefined && disruptedByKubemaint(object, requestOn(sim, node));
};

/**
 * Replays the audit log's node and request writes from `fromRv` (each node with its request as the
 * control plane reads it at that point) and returns the most nodes kubemaint disrupted at once (see
 * disruptedByKubemaint), overall and per `poolLabel`.
 */
export function maxDisruptedAtOnce(
  audit: readonly AuditEntry[],
  fromRv: number,
  poolLabel = 'kubemaint.io/pool',
): { overall: number; byPool: Record<string, number> } {
  const nodes = new Map<string, KObject>();
  const requests = new Map<string, StoredRequest>();
  const disrupted = new Map<string, string>();
  let overall = 0;
  const byPool: Record<string, number> = {};
  for (const entry of audit) {
    let name: string;
    if (entry.resource === R.nodes) {
      name = entry.name;
      if (entry.verb === 'delete') nodes.delete(name);
      else nodes.set(name, entry.object);
    } else if (entry.resource === R_REQUESTS) {
      const stored = entry.verb === 'delete' ? undefined : storedOf(entry.object);
      const node = stored?.request.node ?? requests.get(entry.name)?.request.node;
      if (stored) requests.set(entry.name, stored);
      else requests.delete(entry.name);
      if (node === undefined) continue;
      name = node;
    } else continue;
    if (entry.rv <= fromRv) continue;
    const node = nodes.get(name);
    const mine = [...requests.values()].filter((s) => s.request.node === name);
    const request = requestsByNode(mine).get(name)?.request;
    if (node && disruptedByKubemaint(node, request))
      disrupted.set(name, node.metadata.labels?.[poolLabel] ?? '');
    else disrupted.delete(name);
    overall = Math.max(overall, disrupted.size);
    const counts = new Map<string, number>();
    for (const pool of disrupted.values()) counts.set(pool, (counts.get(pool) ?? 0) + 1);
    for (const [pool, count] of counts) byPool[pool] = Math.max(byPool[pool] ?? 0, count);
  }
  return { overall, byPool };
}
