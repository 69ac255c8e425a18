/**
 * The whole loop on the sim without a process per Job: the control plane creates the real executor
 * Job manifest with an image the sim does not map (its pod "runs" on the node and stays active), and
 * this harness plays the container: for each new Job it runs the real executor (runExecutor over the
 * kube adapter) in process, with the sim's host standing for the machine. Real executor processes
 * cost seconds each on a busy machine; in process the 50-node roll takes seconds of wall time.
 */
import type { ExecutorOutcome } from '../../src/app/executor/run-executor.js';
import {
  inProcessJobFor,
  podOfJob as podOfJobIn,
  runJobsInProcess as runJobs,
} from '../../src/compose/in-process-jobs.js';
import type { ExecutorSettings } from '../../src/app/executor/settings.js';
import { DEFAULT_EXECUTOR_SETTINGS as DEFAULT_SETTINGS } from '../../src/compose/executor-settings.js';
import type { ControlSettings } from '../../src/app/control/settings.js';
import { requestsByNode } from '../../src/adapters/kube/control-cluster.js';
import {
  decodeRequest,
  encodeRequest,
  GROUP,
  REQUESTS,
  type StoredRequest,
} from '../../src/adapters/kube/request-codec.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import type { Sim } from '@kubemaint/kubesim';
import { R, type AuditEntry, type KObject } from '@kubemaint/kubesim';

export const NAMESPACE = 'kubemaint';
export { NOOP_IMAGE, simExecutorClock } from '../../src/compose/in-process-jobs.js';

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
export const realJobFor = (settings: ExecutorSettings): ControlSettings['jobFor'] =>
  inProcessJobFor(settings, NAMESPACE);

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
  requestsOn(sim).get(node);

/** Every node's request (as requestOn) from one read: a loop over a big fleet's nodes reads once. */
export const requestsOn = (sim: Sim): Map<string, MaintenanceRequest> =>
  new Map(
    [...requestsByNode(storedRequests(sim.store.list(R_REQUESTS, { namespace: NAMESPACE })))].map(
      ([node, stored]) => [node, stored.request],
    ),
  );

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

/**
 * Watch the sim's Jobs and run each new one's executor in process (src/compose/in-process-jobs.ts,
 * which `kubemaint rehearse` runs too), recording each host command with the request it ran under.
 */
export function runJobsInProcess(sim: Sim, settings: ExecutorSettings): InProcessJobs {
  const hostCalls: HostCall[] = [];
  const jobs = runJobs(sim, settings, {
    namespace: NAMESPACE,
    onHostCall: (call) => hostCalls.push({ ...call, request: requestOn(sim, call.node) }),
  });
  return { ...jobs, hostCalls };
}

export const podOfJob = (sim: Sim, job: string): KObject | undefined =>
  podOfJobIn(sim, job, NAMESPACE);

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
