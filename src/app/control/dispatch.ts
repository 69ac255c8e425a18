/**
 * Dispatch (DESIGN §1 step 4): approved requests start when every policy gate passes. Candidates go in
 * a stable order (oldest approval first, then node name) so two ticks pick the same nodes; each started
 * one takes a slot in the count before the next is judged, so one tick never over-commits (invariant 1).
 * A blocked request keeps every reason, written only when they change (no write churn every minute).
 * One node's failure (a refused Job, an API error) is reported and the others still go on.
 */
import { start } from '../../core/approval.js';
import {
  evaluatePolicy,
  storedReason,
  type PolicyFacts,
  type SlotFacts,
} from '../../core/policy.js';
import type { Decision, MaintenanceRequest } from '../../core/request.js';
import { jobName } from '../../core/names.js';
import { compare as dispatchOrder } from '../../core/dispatch-order.js';
import {
  alertFacts,
  blockingPodFacts,
  pdbFacts,
  readable,
  unhealthyNodes,
  windowFacts,
} from './facts.js';
import { backedApprovals } from './backed-approvals.js';
import { persist, tell } from './persist.js';
import type { AlertsPort, NodeView, QueryPort } from './ports.js';
import { healthFacts, type HealthFacts } from './health.js';
import { releaseSilences, silenceNode } from './silences.js';
import type { ReconcileDeps } from './deps.js';
import { failAndRestore } from './restore.js';
import { startBeforeDrain } from './hook-steps.js';
import { planHook } from './hooks.js';
import { expectedFor, readBook } from './durations.js';
import type { DurationBook } from '../../core/durations.js';
import type { PeerState } from '../../core/cluster-policy.js';
import { clusterGateReasons, readPeers, type ClusterPeersPort } from './cluster-gate.js';
import { messageOf } from '../../error-message.js';

export interface DispatchDeps extends ReconcileDeps {
  alerts?: AlertsPort;
  /** Prometheus query gates, when `blockers.prometheus.queries` lists any. */
  queries?: QueryPort;
  /** The other clusters of this control plane, when `blockers.clusters` is set (ADR 0027). */
  peers?: ClusterPeersPort;
}

const IN_FLIGHT = new Set(['running', 'verifying']);

export async function dispatchApproved(
  deps: DispatchDeps,
  active: readonly NodeView[],
  decisions: readonly Decision[],
): Promise<string[]> {
  // The plan's order (core/plan.ts): oldest approval first, whatever order the API listed them in.
  const approved = active
    .filter((n) => n.request?.state === 'approved')
    .sort((a, b) => dispatchOrder(a.request!, b.request!));
  if (approved.length === 0) return [];
  const { settings, cluster } = deps;
  const now = deps.clock.now();
  const window = windowFacts(settings.schedule, now, settings.timeZone);
  // The reads every candidate shares, at once: they are on the path of each slot hand-off (issue
  // 34), and none depends on another.
  const [pause, fleet, alerts, book, peers] = await Promise.all([
    readable(() => cluster.readPause()),
    readable(() => cluster.listNodes()),
    alertFacts(deps.alerts),
    // What each request is expected to take: observed durations once there are any (ADR 0017).
    readBook(deps),
    // The other clusters, read once for every candidate of this pass (cluster-gate.ts).
    readPeers(deps),
  ]);
  const unhealthy =
    'error' in fleet
      ? fleet
      : { nodes: unhealthyNodes(fleet), max: unhealthyMax(settings, fleet.length) };
  const health = await healthFacts(deps, fleet, now);
  const inFlight = active
    .filter((n) => IN_FLIGHT.has(n.request?.state ?? ''))
    .map((n) => n.request!);
  const shared = {
    now,
    pause,
    window,
    unhealthy,
    alerts,
    health,
    inFlight,
    decisions,
    book,
    peers,
  };
  const log: string[] = [];
  for (const node of approved) {
    try {
      const line = await dispatchOne(deps, node, shared);
      if (line !== undefined) log.push(line);
    } catch (error) {
      // Unknown whether `running` was written: count its slot as taken for the rest of this tick
      // (invariant 1); the next tick reads what the cluster says and decides again.
      shared.inFlight.push(node.request!);
      log.push(`${node.name}: not dispatched: ${messageOf(error)}`);
    }
  }
  return log;
}

type Shared = Pick<PolicyFacts, 'pause' | 'window' | 'unhealthy' | 'alerts'> & {
  now: Date;
  /** Query gates, flapping nodes, the soak: the same for every candidate of this tick. */
  health: HealthFacts;
  book: DurationBook;
  inFlight: MaintenanceRequest[];
  decisions: readonly Decision[];
  peers: PeerState[] | undefined;
};

/** Judge one approved request and start it when every gate passes; returns its line of the report. */
async function dispatchOne(
  deps: DispatchDeps,
  node: NodeView,
  shared: Shared,
): Promise<string | undefined> {
  const { settings, cluster } = deps;
  const { now, inFlight } = shared;
  const request = node.request!;
  const base: PolicyFacts = {
    node: node.name,
    timeZone: settings.timeZone,
    ...expectation(deps, shared.book, request),
    pause: shared.pause,
    window: shared.window,
    unhealthy: shared.unhealthy,
    ...(shared.alerts ? { alerts: shared.alerts } : {}),
    ...shared.health,
    slots: slotFacts(settings, inFlight, request),
  };
  // The API-heavy gates run only for a request the cheap gates let through.
  let verdict = evaluatePolicy(base, now);
  let across = clusterGateReasons(deps, shared.peers, inFlight, now);
  if (verdict.verdict === 'proceed' && across.length === 0) {
    const blockingPods = await blockingPodFacts(cluster, node.name, settings.blockers.podSelectors);
    const pdbs = await pdbFacts(cluster, node.name, now, settings.drain);
    verdict = evaluatePolicy({ ...base, ...(blockingPods ? { blockingPods } : {}), pdbs }, now);
    // Judged again after the awaits: another cluster's loop may have claimed a start meanwhile.
    across = clusterGateReasons(deps, shared.peers, inFlight, now);
  }
  if (verdict.verdict === 'blocked' || across.length > 0) {
    const own = verdict.verdict === 'blocked' ? verdict.reasons.map(storedReason) : [];
    const reasons = [...own, ...across];
    await recordBlocked(deps, node, request, reasons);
    return `${node.name}: blocked (${reasons.join('; ')})`;
  }
  // Claimed before anything else is awaited; given back below when nothing started.
  const release = deps.peers?.claim(settings.cluster, now) ?? (() => undefined);
  const job = jobName(node.name, request.id);
  // Invariant 9: the approvals in status count only where a decision object, bound to its author
  // by admission, backs them. Status is writable by more than the approvers; the objects are not.
  const { backed, forged } = backedApprovals(request, shared.decisions);
  if (forged.length > 0) {
    const why = `approvals in the request's status that no MaintenanceApproval backs: ${forged.join(', ')} (written by someone who may write request status, not by the approvers); nothing was started`;
    release();
    await failAndRestore(deps, node, request, why);
    return `${node.name}: failed: ${why}`;
  }
  const result = start(
    backed,
    { by: { kind: 'system', id: 'kubemaint' }, policy: settings.approval, job },
    now,
  );
  if (!result.ok) {
    release();
    return `${node.name}: not started (${result.error.message})`;
  }
  // A beforeDrain hook runs first: recorded with `running`, its Job created instead (hook-steps.ts).
  const beforeDrain = planHook(deps, result.request, 'beforeDrain');
  // The node's alerts are silenced before anything happens to it (alertmanager:, silences.ts).
  const expectedMs = base.expectedDurationMs ?? settings.expectedDurationMs[request.action];
  const silenced = await silenceNode(deps, request, expectedMs);
  if (!silenced.ok) {
    release();
    await recordBlocked(deps, node, request, [silenced.why]);
    return `${node.name}: blocked (${silenced.why})`;
  }
  // The request moves to running first: if the Job creation then fails, the next tick sees a
  // running request without a Job and fails it, instead of a Job nobody accounts for.
  const { blockedReasons: _cleared, ...startedRequest } = {
    ...result.request,
    ...(silenced.held ? { silences: silenced.held } : {}),
    ...(beforeDrain ? { hooks: { beforeDrain: beforeDrain.run } } : {}),
  };
  const outcome = await persist(deps, node, { ...result, request: startedRequest });
  if (outcome.status !== 'written') {
    release();
    await releaseSilences(deps, silenced.held);
  }
  if (outcome.status === 'lost-race') {
    // Another writer changed this request first: most likely a second tick (another serve) that
    // judged the same candidates in the same order and started it. Count its slot as taken;
    // going on to the next candidate as if it were free starts one Job more than there are
    // slots, and that executor ends "no free slot" (the request fails). If the other write
    // was something else, the next tick starts what this one held back.
    inFlight.push(startedRequest);
    return undefined;
  }
  if (outcome.status !== 'written') return undefined;
  if (beforeDrain) {
    inFlight.push(startedRequest);
    return startBeforeDrain(deps, node, outcome.request, beforeDrain);
  }
  try {
    const before = settings.nodeLabels?.before ?? {};
    if (Object.keys(before).length > 0) await cluster.patchNode(node.name, { labels: before });
    await cluster.createJob(settings.jobFor(node.name, request.id, request.action));
  } catch (error) {
    // A Job the apiserver refuses (422: invalid; 403: admission) is refused again next time:
    // fail the request now, with the reason, and hand the node back. Nothing ran on it yet.
    const why = `executor Job ${job} was not created: ${messageOf(error)}`;
    // If this write fails too, the request stays running without a Job: the caller counts its
    // slot, and the next tick fails it as a request whose Job vanished.
    await failAndRestore(deps, node, startedRequest, why);
    return `${node.name}: failed: ${why}`;
  }
  inFlight.push(startedRequest);
  // Told once the Job exists, not between the two writes: a Slack post there would widen the
  // window in which the request is running without a Job (see JOB_CREATE_GRACE_MS).
  const unsilenced = startedRequest.silences?.warning;
  await tell(deps, outcome.request, {
    kind: 'draining',
    reason: 'KubemaintStarted',
    message: `executor Job ${job} created${unsilenced ? `; alerts not silenced: ${unsilenced}` : ''}`,
    ...(unsilenced ? { warning: true } : {}),
  });
  return `${node.name}: started ${job}`;
}

function slotFacts(
  settings: DispatchDeps['settings'],
  inFlight: readonly MaintenanceRequest[],
  request: MaintenanceRequest,
): SlotFacts {
  const holders = inFlight.map((r) => r.node);
  const facts: SlotFacts = { inUse: inFlight.length, limit: settings.lock.concurrency, holders };
  const pool = request.pool;
  const poolLimit = pool === undefined ? undefined : settings.lock.pools[pool];
  if (pool === undefined || poolLimit === undefined) return facts;
  const same = inFlight.filter((r) => r.pool === pool).map((r) => r.node);
  return { ...facts, pool: { name: pool, inUse: same.length, limit: poolLimit, holders: same } };
}

async function recordBlocked(
  deps: DispatchDeps,
  node: NodeView,
  request: MaintenanceRequest,
  reasons: string[],
) {
  if (JSON.stringify(request.blockedReasons ?? []) === JSON.stringify(reasons)) return;
  const updated: MaintenanceRequest = { ...request, blockedReasons: reasons };
  await persist(
    deps,
    node,
    { ok: true, changed: true, request: updated },
    {
      kind: 'blocked',
      message: reasons.join('; '),
    },
  );
}

/** A percentage limit counts whole nodes of the fleet as it is now, rounded down (kubectl's maxUnavailable). */
function unhealthyMax(settings: DispatchDeps['settings'], fleetSize: number): number {
  const limit = settings.blockers.maxUnhealthyNodes;
  return 'count' in limit ? limit.count : Math.floor((fleetSize * limit.percent) / 100);
}

/** The window-fit gate's facts: how long the request is expected to take, and from what. */
function expectation(
  deps: DispatchDeps,
  book: DurationBook,
  request: MaintenanceRequest,
): Pick<PolicyFacts, 'expectedDurationMs' | 'expectedDurationSource'> {
  const expected = expectedFor(deps, book, request);
  return { expectedDurationMs: expected.ms, expectedDurationSource: expected.why };
}
