/**
 * Moves each active request one step from what the cluster says (DESIGN §1 steps 3–6): proposals
 * expire or are auto-approved, a running request follows its executor Job, a verifying one waits for
 * proof that the node came back, then kubemaint uncordons (only what it cordoned), releases the slot
 * and records the maintenance. A failure is reported with the state the node was left in (invariant 8).
 */
import { approve, done, expire, fail, verifying } from '../../core/approval.js';
import { EXIT } from '../../core/exit-codes.js';
import { matchesSelector } from '../../core/label-selector.js';
import {
  ANN_LAST_MAINTENANCE,
  ANN_REBOOT_REQUIRED_PACKAGES,
  ANN_REBOOT_REQUIRED_REPORTER,
  ANN_REBOOT_REQUIRED_SINCE,
  REPORTER_AGENT,
} from '../../core/names.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { formatDuration } from '../../core/duration.js';
import { describeNode, verifyNode, type AgentMark } from '../../core/verify.js';
import { persist, tell, type PersistDeps, type Report } from './persist.js';
import type { Clock, NodeView } from './ports.js';
import { AUTO_APPROVE_RULE, type ControlSettings } from './settings.js';

export interface ReconcileDeps extends PersistDeps {
  settings: ControlSettings;
  clock: Clock;
}

const SYSTEM = { kind: 'system', id: 'kubemaint' } as const;

/** One step for one node's active request; returns what happened, for the tick's report. */
export async function reconcileRequest(deps: ReconcileDeps, node: NodeView): Promise<string> {
  const request = node.request;
  if (!request) return 'no request';
  switch (request.state) {
    case 'proposed':
      return reconcileProposal(deps, node, request);
    case 'running':
      return reconcileRunning(deps, node, request);
    case 'verifying':
      return reconcileVerifying(deps, node, request);
    case 'approved':
      return 'waiting for dispatch';
    case 'done':
    case 'rejected':
    case 'expired':
    case 'cancelled':
    case 'failed':
      return request.state;
  }
}

async function reconcileProposal(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
): Promise<string> {
  const now = deps.clock.now();
  const policy = deps.settings.approval;
  const expired = expire(request, { policy }, now);
  if (expired.ok && expired.changed) {
    await persist(deps, node, expired, { kind: 'failed', message: 'proposal expired unapproved' });
    return 'expired';
  }
  const auto = deps.settings.autoApprove;
  if (auto && matchesSelector(auto, node.labels)) {
    const result = approve(
      request,
      { approver: { kind: 'policy', rule: AUTO_APPROVE_RULE }, policy },
      now,
    );
    const outcome = await persist(deps, node, result, {
      kind: 'approved',
      message: 'auto-approved: the node matches approval.autoApprove.nodeSelector',
      approver: `policy:${AUTO_APPROVE_RULE}`,
    });
    return outcome.status === 'written' ? 'auto-approved' : 'waiting for approval';
  }
  return 'waiting for approval';
}

async function reconcileRunning(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
): Promise<string> {
  if (request.hostCommandIssuedAt) {
    // The executor issued the host command but died before writing `verifying` (the reboot may
    // have killed it): the proof is in the node, not in the Job.
    const result = verifying(request, { by: SYSTEM }, deps.clock.now());
    await persist(deps, node, result);
    return 'verifying';
  }
  const job = request.job ? await deps.cluster.getJob(request.job) : undefined;
  if (job?.phase === 'active') {
    return (await askAboutStalledDrain(deps, node, request))
      ? 'asked about the stalled drain'
      : 'executor running';
  }
  // The node was read before the Job. A reboot that ended the Job came after the executor wrote
  // `verifying`, so a node read now shows it: judge from that, never from the stale view (failing
  // here would uncordon a rebooting node and hand its slot to the next one).
  const fresh = await deps.cluster.getNode(node.name);
  if (fresh?.request?.id !== request.id) return 'request changed meanwhile';
  if (fresh.request.state !== 'running') return `moved on to ${fresh.request.state}`;
  if (fresh.request.hostCommandIssuedAt) return reconcileRunning(deps, fresh, fresh.request);
  if (!job) {
    // Dispatch writes `running` and then creates the Job: a tick of another serve (or function
    // instance), woken by that very write, can look in between. Only a Job still missing after
    // a grace has vanished; failing it at once fails a request whose Job is being created.
    const since = Date.parse(lastEntered(fresh.request, 'running') ?? '');
    if (deps.clock.now().getTime() - since < JOB_CREATE_GRACE_MS) return 'waiting for its Job';
  }
  // The executor writes `verifying` before it issues the host command, so a Job that ended
  // without that write never touched the host.
  const why = !job
    ? `executor Job ${request.job ?? '(none)'} vanished before issuing the host command`
    : job.phase === 'succeeded'
      ? `executor Job ${job.name} finished without issuing the host command`
      : jobFailure(job.exitCode, job.message);
  await failAndRestore(deps, fresh, fresh.request, why);
  return 'failed';
}

/** How long a running request may be without its Job before it counts as vanished. */
export const JOB_CREATE_GRACE_MS = 30_000;

/** When the request last entered `state`, from its history. */
function lastEntered(request: MaintenanceRequest, state: string): string | undefined {
  return request.history.findLast((h) => h.to === state)?.at;
}

function jobFailure(exitCode: number | undefined, message: string | undefined): string {
  const detail = message ? `: ${message}` : '';
  if (exitCode === undefined) return `executor Job failed${detail}`;
  switch (exitCode) {
    case EXIT.noSlot:
      return `executor found no free lock slot${detail}`;
    case EXIT.drainBlocked:
      return `drain blocked${detail}`;
    case EXIT.requestInvalid:
      return `executor found the request no longer valid${detail}`;
    case EXIT.config:
      return `executor config error${detail}`;
    default:
      return `executor Job failed (exit ${exitCode})${detail}`;
  }
}

async function reconcileVerifying(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
): Promise<string> {
  const now = deps.clock.now();
  if (request.proven) return releaseAfterDelay(deps, node, request, request.proven, now);
  if (!request.announced?.includes('host')) {
    // Said once, then verification goes on from the next tick on the node as it is then.
    const verb = request.action === 'reboot' ? 'rebooting' : 'upgrading';
    await announce(deps, node, request, 'host', {
      kind: verb,
      message:
        request.action === 'reboot'
          ? `reboot issued; waiting for the node to come back with a new boot id`
          : `kubelet upgrade to ${request.targetVersion ?? '?'} issued; waiting for it to report`,
    });
    return verb;
  }
  const since = new Date(request.hostCommandIssuedAt ?? request.updatedAt);
  const timeout = deps.settings.nodeTimeoutMs[request.action];
  const outcome = verifyNode(
    request,
    node,
    since,
    timeout,
    now,
    agentMarkOn(node, deps.settings.detection.rebootLabel),
  );
  if (outcome.result === 'waiting') return outcome.message;
  if (outcome.result === 'failed') {
    // After the host command the node's state is unknown: leave it cordoned and say so.
    const result = fail(
      request,
      { by: SYSTEM, failure: `${outcome.message}; left cordoned for a person to look at` },
      now,
    );
    await persist(deps, node, result, { kind: 'failed', message: outcome.message, warning: true });
    return 'failed';
  }
  const proof = outcome.warning ? `${outcome.proof}; but ${outcome.warning}` : outcome.proof;
  await tell(deps, { ...request, updatedAt: now.toISOString() }, { kind: 'back', message: proof });
  const delayMs = deps.settings.lock.releaseDelayMs ?? 0;
  await restoreNode(deps, node, request, {
    clearMark: request.action === 'reboot',
    done: true,
    releaseSlot: delayMs === 0,
  });
  if (delayMs > 0) {
    // Back in service now; the slot stays taken (the request stays active, so dispatch counts it)
    // until the delay has passed without trouble.
    const fresh = (await deps.cluster.getNode(node.name)) ?? node;
    const at = now.toISOString();
    const warning = outcome.warning !== undefined;
    const soaking = { ...request, proven: { at, proof, ...(warning ? { warning } : {}) } };
    await persist(deps, fresh, { ok: true, changed: true, request: soaking });
    return `back; its slot is held ${formatDuration(delayMs)} (lock.releaseDelay)`;
  }
  return finishDone(deps, node, request, proof, now, outcome.warning !== undefined);
}

/** The end of `lock.releaseDelay`: hand the slot on and record the request done. */
async function releaseAfterDelay(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  proven: NonNullable<MaintenanceRequest['proven']>,
  now: Date,
): Promise<string> {
  const until = Date.parse(proven.at) + (deps.settings.lock.releaseDelayMs ?? 0);
  if (now.getTime() < until) return `back; slot held until ${new Date(until).toISOString()}`;
  if (request.slot) await deps.cluster.releaseSlot(request.slot, `${request.node}/${request.id}`);
  return finishDone(deps, node, request, proven.proof, now, proven.warning === true);
}

async function finishDone(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  proof: string,
  now: Date,
  warning: boolean,
): Promise<string> {
  const { proven: _soaked, ...finished } = request;
  const result = done(finished, { by: SYSTEM, proof }, now);
  const fresh = await deps.cluster.getNode(node.name);
  const durationMs = now.getTime() - Date.parse(request.createdAt);
  await persist(deps, fresh ?? node, result, {
    kind: 'done',
    message: proof,
    durationMs,
    ...(warning ? { warning: true } : {}),
  });
  return 'done';
}

/** The reporter agent's mark, if the node carries one (the agent clears it, not kubemaint). */
function agentMarkOn(node: NodeView, rebootLabel: string): AgentMark | undefined {
  if (node.labels[rebootLabel] !== 'true') return undefined;
  if (node.annotations[ANN_REBOOT_REQUIRED_REPORTER] !== REPORTER_AGENT) return undefined;
  const since = node.annotations[ANN_REBOOT_REQUIRED_SINCE];
  return since === undefined ? {} : { since };
}

/**
 * Undo what kubemaint did to the node: uncordon only if kubemaint cordoned it (invariant 4),
 * release the slot, and after a proven reboot clear a reboot mark that predates it.
 */
export async function restoreNode(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  options: { clearMark: boolean; done: boolean; releaseSlot?: boolean },
): Promise<void> {
  const uncordon =
    request.cordonedByUs === true && request.wasCordoned !== true && node.unschedulable;
  const labels: Record<string, string | null> = {};
  const annotations: Record<string, string | null> = {};
  if (options.done) {
    annotations[ANN_LAST_MAINTENANCE] = JSON.stringify(lastMaintenance(request, deps.clock.now()));
    // Also on a node that was cordoned before kubemaint came (kured#1328 skips it there).
    Object.assign(labels, deps.settings.nodeLabels?.after ?? {});
  }
  // The agent's own mark is left to the agent: it clears it when the host's file is gone, and a
  // mark it keeps after the reboot is a need that is still there.
  const agents = node.annotations[ANN_REBOOT_REQUIRED_REPORTER] === REPORTER_AGENT;
  if (options.clearMark && !agents && markPredates(node, request)) {
    labels[deps.settings.detection.rebootLabel] = null;
    annotations[ANN_REBOOT_REQUIRED_SINCE] = null;
    annotations[ANN_REBOOT_REQUIRED_PACKAGES] = null;
    annotations[ANN_REBOOT_REQUIRED_REPORTER] = null;
  }
  await deps.cluster.patchNode(node.name, {
    ...(uncordon ? { unschedulable: null } : {}),
    labels,
    annotations,
  });
  if (request.slot && options.releaseSlot !== false)
    await deps.cluster.releaseSlot(request.slot, `${request.node}/${request.id}`);
}

/** A mark set after the host command was issued is a new need, not this one: keep it. */
function markPredates(node: NodeView, request: MaintenanceRequest): boolean {
  const since = Date.parse(node.annotations[ANN_REBOOT_REQUIRED_SINCE] ?? '');
  const issued = Date.parse(request.hostCommandIssuedAt ?? '');
  return Number.isNaN(since) || Number.isNaN(issued) || since < issued;
}

const lastMaintenance = (request: MaintenanceRequest, now: Date) => ({
  request: request.id,
  action: request.action,
  ...(request.targetVersion ? { version: request.targetVersion } : {}),
  at: now.toISOString(),
});

/** A failure before the host command: the node is safe to hand back, so hand it back. */
export async function failAndRestore(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  why: string,
): Promise<void> {
  await restoreNode(deps, node, request, { clearMark: false, done: false });
  const fresh = (await deps.cluster.getNode(node.name)) ?? node;
  const state = `${describeNode(fresh)}${fresh.unschedulable ? ', cordoned' : ', schedulable'}`;
  const result = fail(request, { by: SYSTEM, failure: `${why}; ${state}` }, deps.clock.now());
  await persist(deps, fresh, result, {
    kind: 'failed',
    message: `${why}; ${state}`,
    warning: true,
  });
}

/**
 * A drain stuck on the same blocker for longer than `drainStallAfterMs` asks people once whether to
 * keep waiting, skip the node or force the rest out; their answer reaches the executor through the
 * request (`drainDecision`).
 */
async function askAboutStalledDrain(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
): Promise<boolean> {
  const since = Date.parse(request.drain?.stalledSince ?? '');
  const stalledFor = deps.clock.now().getTime() - since;
  if (Number.isNaN(since) || stalledFor < deps.settings.drainStallAfterMs) return false;
  if (request.drainDecision || request.announced?.includes('drain-stall')) return false;
  return announce(deps, node, request, 'drain-stall', {
    kind: 'blocked',
    message: `drain stalled: ${request.drain?.message ?? 'no progress'}`,
    ask: 'drain-decision',
    warning: true,
  });
}

/** Record that `what` was reported, and report it; a lost race means the next tick says it instead. */
async function announce(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  what: string,
  report: Report,
): Promise<boolean> {
  const next = { ...request, announced: [...(request.announced ?? []), what] };
  const outcome = await persist(deps, node, { ok: true, changed: true, request: next }, report);
  return outcome.status === 'written';
}
