/**
 * Moves each active request one step from what the cluster says (DESIGN §1 steps 3–6): proposals
 * expire or are auto-approved, a running request follows its executor Job, a verifying one waits for
 * proof that the node came back (verifying.ts), then kubemaint uncordons (only what it cordoned),
 * releases the slot and records the maintenance (restore.ts). A failure is reported with the state the
 * node was left in (invariant 8).
 */
import { approve, expire, verifying, type TransitionResult } from '../../core/approval.js';
import { EXIT } from '../../core/exit-codes.js';
import { matchesSelector } from '@kubemaint/label-selector';
import { nodeLostWhileRunning } from '../../core/node-lost.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { ReconcileDeps } from './deps.js';
import { reconcileBeforeDrain } from './hook-steps.js';
import { announce, persist } from './persist.js';
import type { JobView, NodeView } from './ports.js';
import { failAndRestore, failLeftCordoned, SYSTEM } from './restore.js';
import { AUTO_APPROVE_RULE, type ControlSettings } from './settings.js';

export type { ReconcileDeps } from './deps.js';
import { reconcileVerifying } from './verifying.js';

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
    case 'skipped':
      return request.state;
  }
}

/**
 * Whether the auto-approval rule approves `request` on a node with `labels`: the node matches
 * `approval.autoApprove.nodeSelector`, and detection proposed the request. A request typed by hand
 * (or written before origins were recorded) is a person's wish, not a finding: the rule covers it
 * only with `approval.autoApprove.manual` (issue 15).
 */
export function autoApproves(
  settings: Pick<ControlSettings, 'autoApprove' | 'autoApproveManual'>,
  request: Pick<MaintenanceRequest, 'origin'>,
  labels: Parameters<typeof matchesSelector>[1],
): boolean {
  const auto = settings.autoApprove;
  if (!auto) return false;
  if (request.origin !== 'detection' && settings.autoApproveManual !== true) return false;
  return matchesSelector(auto, labels);
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
  if (autoApproves(deps.settings, request, node.labels)) {
    const approved = approve(
      request,
      { approver: { kind: 'policy', rule: AUTO_APPROVE_RULE }, policy },
      now,
    );
    const result =
      approved.ok && approved.changed ? await recordPolicyApproval(deps, approved) : approved;
    const outcome = await persist(deps, node, result, {
      kind: 'approved',
      message: 'auto-approved: the node matches approval.autoApprove.nodeSelector',
      approver: `policy:${AUTO_APPROVE_RULE}`,
    });
    return outcome.status === 'written' ? 'auto-approved' : 'waiting for approval';
  }
  return 'waiting for approval';
}

/**
 * Dispatch counts an approval only where a decision object backs it (invariant 9): the control plane
 * records the policy's, and marks it applied so that the next tick does not apply it again.
 */
async function recordPolicyApproval(
  deps: ReconcileDeps,
  approved: Extract<TransitionResult, { ok: true }>,
): Promise<TransitionResult> {
  const by = `policy:${AUTO_APPROVE_RULE}`;
  const request = approved.request;
  const { name } = await deps.cluster.decide({
    request: request.id,
    by,
    decision: 'approve',
    groups: [],
  });
  return {
    ...approved,
    request: {
      ...request,
      approvals: request.approvals.map((a) =>
        a.by === by && a.record === undefined ? { ...a, record: name } : a,
      ),
      decisions: [
        ...(request.decisions ?? []).filter((d) => d.name !== name),
        { name, ok: true, message: `approve by ${by}: ${request.id} is ${request.state}` },
      ],
    },
  };
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
  // A beforeDrain hook runs before the executor Job exists (hook-steps.ts).
  const before = request.hooks?.beforeDrain;
  if (before?.state === 'running') return reconcileBeforeDrain(deps, node, request, before);
  const job = request.job ? await deps.cluster.getJob(request.job) : undefined;
  if (job?.phase === 'active') {
    const lost = nodeLostWhileRunning(
      node,
      request,
      deps.settings.nodeTimeoutMs[request.action],
      deps.clock.now(),
    );
    if (lost) {
      // As after a host command whose node never came back (verifying.ts).
      await failLeftCordoned(deps, node, request, lost);
      return 'failed: node lost while running';
    }
    return (await askAboutStalledDrain(deps, node, request))
      ? 'asked about the stalled drain'
      : 'executor running';
  }
  // The request was read before the Job. A Job that ended after the executor issued the host
  // command ended after it wrote `verifying`, so the request read now shows it: judge from that,
  // never from the stale view (failing here would uncordon a rebooting node and hand its slot to
  // the next one). Read by its id, from the API server: a node's view within a tick's pass is the
  // requests as the pass read them, from before the Job was looked at.
  const fresh = await deps.cluster.findRequest(request.id);
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
      : jobFailure(job);
  await failAndRestore(deps, fresh, fresh.request, why);
  return 'failed';
}

/**
 * The executor ended `node.request` itself (a drain that could not finish: failed, skipped, or
 * cancelled after an approver's skip). Its Event is on the node, but only the control plane can tell
 * Slack and keep the node's state label; it does so once, marking the request `ended`.
 */
export async function reportExecutorEnd(deps: ReconcileDeps, node: NodeView): Promise<string> {
  const request = node.request!;
  const end = request.history.at(-1);
  const endedMs = deps.clock.now().getTime() - Date.parse(end?.at ?? '');
  if (!(endedMs <= EXECUTOR_END_NEWS_MS)) {
    // Old news (ended before the control plane reported executor ends at all, or while it was down
    // for longer than this): recorded as said without telling anyone, so a first tick after an
    // upgrade does not replay the history of every failed drain into Slack.
    const next = { ...request, announced: [...(request.announced ?? []), 'ended'] };
    const outcome = await persist(deps, node, { ok: true, changed: true, request: next });
    return outcome.status === 'written'
      ? `ended by the executor at ${end?.at ?? '?'}: too long ago to report, recorded as said`
      : 'recording its old end lost a race';
  }
  const why = request.failure ?? end?.note ?? `the executor ended it (${request.state})`;
  const said = await announce(deps, node, request, 'ended', {
    kind: 'failed',
    reason:
      request.state === 'skipped'
        ? 'KubemaintSkipped'
        : request.state === 'cancelled'
          ? 'KubemaintCancelled'
          : 'KubemaintFailed',
    message: `${request.state} by the executor: ${why}`,
    warning: request.state === 'failed',
  });
  return said ? `reported: ${request.state} by the executor` : 'report of its end lost a race';
}

/** How long after the executor ended a request its end is still news worth a Slack reply. */
export const EXECUTOR_END_NEWS_MS = 24 * 60 * 60_000;

/** How long a running request may be without its Job before it counts as vanished. */
export const JOB_CREATE_GRACE_MS = 30_000;

/** When the request last entered `state`, from its history. */
function lastEntered(request: MaintenanceRequest, state: string): string | undefined {
  return request.history.findLast((h) => h.to === state)?.at;
}

function jobFailure({ exitCode, exitReason, message }: JobView): string {
  const detail = message ? `: ${message}` : '';
  if (exitCode === undefined) return `executor Job failed${detail}`;
  switch (exitCode) {
    case EXIT.noSlot:
      return `executor found no free slot${detail}`;
    case EXIT.drainBlocked:
      return `drain blocked${detail}`;
    case EXIT.requestInvalid:
      return `executor found the request no longer valid${detail}`;
    case EXIT.config:
      return `executor config error${detail}`;
    default:
      // containerd's word for a container whose task it cannot find after a boot: one that was
      // running when its node lost power or restarted outside kubemaint (docs/real-nodes.md).
      if (exitReason === 'Unknown')
        return `executor's container was lost (exit ${exitCode}, reason Unknown), as when its node restarts or loses power under it${detail}`;
      // The kubelet's reason when it is more than "Error" (OOMKilled, DeadlineExceeded…).
      return exitReason && exitReason !== 'Error'
        ? `executor Job failed (exit ${exitCode}, ${exitReason})${detail}`
        : `executor Job failed (exit ${exitCode})${detail}`;
  }
}

/**
 * A drain stuck on the same blocker for longer than `drainStallAfterMs` asks people once whether to
 * keep waiting, skip the node or force the rest out; their answer reaches the executor through the
 * request (`drainDecision`). A drain past its timeout under `drain.onTimeout: force` says once when
 * the remaining pods will be deleted, with the same question.
 */
async function askAboutStalledDrain(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
): Promise<boolean> {
  const forceAt = request.drain?.forceAt;
  if (forceAt && !request.drainDecision && !request.announced?.includes('drain-timeout')) {
    // drain.onTimeout: force — the node stays cordoned past the timeout; say why and until when,
    // while a person can still choose otherwise.
    const pods = request.drain?.waitingOn.map((w) => w.pod).join(', ') ?? '';
    return announce(deps, node, request, 'drain-timeout', {
      kind: 'blocked',
      message: `drain timed out; the remaining pods (${pods}) are deleted at ${forceAt} (drain.onTimeout: force) unless someone decides skip or wait`,
      ask: 'drain-decision',
      warning: true,
    });
  }
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
