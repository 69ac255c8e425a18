/**
 * Writing a request back: every transition is a conditional write on the request object's
 * resourceVersion, so two ticks (or a tick and a click) cannot both win. A new request is created;
 * if another active one for the same node was created first (two proposals racing), the later one
 * is withdrawn (deleted) at once. A lost race is not an error: the winner's write stands and the
 * next tick decides again from what the cluster says. A request that is gone when its write lands
 * lost one too: another serve withdrew it (it lost a creation race) or retention deleted it between
 * the read and the write.
 */
import type { TransitionResult } from '../../core/approval.js';
import type { EventKind, MaintenanceEvent } from '../../core/events.js';
import { isActive, type MaintenanceRequest } from '../../core/request.js';
import { silencesEndedBy } from '../../core/silence.js';
import type { WaitingTaintSettings } from '../../core/waiting-taint.js';
import type { ClusterPort, Notifier, SilencesPort } from './ports.js';
import { followRequest } from './waiting-taint.js';

export interface PersistDeps {
  cluster: ClusterPort;
  notifier: Notifier;
  clusterName: string;
  /** Alertmanager, when configured: a write that ends a request ends its silences. */
  silences?: SilencesPort;
  /** `waitingTaint`: a write that starts or ends a request's wait taints or untaints its node. */
  settings?: { waitingTaint?: WaitingTaintSettings };
}

export interface Report {
  kind: EventKind;
  /** Kubernetes Event reason on the node, e.g. KubemaintApproved. */
  reason?: string;
  message: string;
  warning?: boolean;
  approver?: string;
  durationMs?: number;
  ask?: MaintenanceEvent['ask'];
}

/** What persist needs to know about where the request is stored. */
export interface Stored {
  name: string;
  request?: MaintenanceRequest | undefined;
  /** The stored request's resourceVersion; undefined when `request` is not stored yet. */
  requestVersion?: string | undefined;
}

export type PersistOutcome =
  | { status: 'written'; request: MaintenanceRequest; resourceVersion: string }
  | { status: 'unchanged'; request: MaintenanceRequest }
  | { status: 'lost-race' }
  | { status: 'refused'; code: string; message: string };

/** How often a write is retried when the object changed but not in a way the decision depends on. */
const CONFLICT_RETRIES = 10;

export async function persist(
  deps: PersistDeps,
  node: Stored,
  result: TransitionResult,
  report?: Report,
): Promise<PersistOutcome> {
  if (!result.ok)
    return { status: 'refused', code: result.error.code, message: result.error.message };
  if (!result.changed) return { status: 'unchanged', request: result.request };
  let stored: Stored | undefined = node.request?.id === result.request.id ? node : undefined;
  // A view of the node may carry another of its requests (the active one, or a newer one): read
  // this one as stored, and create it only when it is not stored yet.
  if (stored?.requestVersion === undefined)
    stored = await deps.cluster.findRequest(result.request.id);
  if (stored?.requestVersion === undefined) return create(deps, result.request, report);
  const expected = comparable(stored.request);
  let resourceVersion: string | undefined = stored.requestVersion;
  let request = result.request;
  for (let attempt = 0; ; attempt++) {
    try {
      resourceVersion = await deps.cluster.writeRequest(request, resourceVersion);
      break;
    } catch (error) {
      if (isNotFound(error)) return { status: 'lost-race' };
      if (!isConflict(error)) throw error;
      if (attempt >= CONFLICT_RETRIES) return { status: 'lost-race' };
      // The object moved on. If only what the decision does not depend on changed (where the Slack
      // prompt lives), the decision still holds: write again on the new version. Else someone won.
      const fresh = await deps.cluster.findRequest(request.id);
      if (!fresh?.request || comparable(fresh.request) !== expected) return { status: 'lost-race' };
      // The Slack notifier records where the prompt lives right after posting it: keep that.
      if (fresh.request.slack && !request.slack)
        request = { ...request, slack: fresh.request.slack };
      resourceVersion = fresh.requestVersion;
    }
  }
  // The node's alerts matter again from now; one that fails is left to the next sweep (silences.ts).
  for (const id of silencesEndedBy(stored.request, request))
    await deps.silences?.expire(id).catch(() => undefined);
  await followRequest(deps, stored, request);
  if (report) await tell(deps, request, report);
  return { status: 'written', request, resourceVersion: resourceVersion ?? '' };
}

async function create(
  deps: PersistDeps,
  request: MaintenanceRequest,
  report: Report | undefined,
): Promise<PersistOutcome> {
  let resourceVersion: string;
  try {
    resourceVersion = await deps.cluster.writeRequest(request, undefined);
  } catch (error) {
    // Created, but its status (a second, conditional write) lost to another serve's: that tick saw
    // the new object without a status and decided it (intake.ts), and said so. Its write stands.
    if (isConflict(error)) return { status: 'lost-race' };
    throw error;
  }
  // Two proposals for one node may race (two ticks, a tick and a Slack command): the first the
  // apiserver created stays (createdVersion). The later one was never anyone's proposal, so it is
  // withdrawn, not kept as a cancelled request that would later read as the node's latest.
  const view = await deps.cluster.getNode(request.node);
  const winner = view?.request;
  if (winner && winner.id !== request.id && isActive(winner.state)) {
    await deps.cluster.withdrawRequest(request.id).catch(() => undefined);
    return { status: 'lost-race' };
  }
  // As stored: with the version it was created at, which every later write carries on.
  const written = winner?.id === request.id ? winner : request;
  await followRequest(deps, view && { taints: view.taints ?? [] }, written);
  if (report) await tell(deps, written, report);
  return {
    status: 'written',
    request: written,
    resourceVersion:
      winner?.id === request.id ? (view?.requestVersion ?? resourceVersion) : resourceVersion,
  };
}

/** Event on the node and the notifier; reporting never fails the step that already happened. */
export async function tell(
  deps: PersistDeps,
  request: MaintenanceRequest,
  report: Report,
): Promise<void> {
  const reason =
    report.reason ?? `Kubemaint${report.kind[0]!.toUpperCase()}${report.kind.slice(1)}`;
  await Promise.allSettled([
    deps.cluster.recordEvent(request.node, {
      reason,
      message: `${request.id}: ${report.message}`.slice(0, 1000),
      type: report.warning ? 'Warning' : 'Normal',
    }),
    deps.notifier.notify(
      {
        kind: report.kind,
        node: request.node,
        cluster: deps.clusterName,
        requestId: request.id,
        action: request.action,
        reason: report.message,
        at: request.updatedAt,
        ...(request.targetVersion ? { targetVersion: request.targetVersion } : {}),
        ...(report.approver ? { approver: report.approver } : {}),
        ...(report.durationMs !== undefined ? { durationMs: report.durationMs } : {}),
        ...(report.ask ? { ask: report.ask } : {}),
      },
      request,
    ),
  ]);
}

/** A request as a decision depends on it: where its Slack prompt lives is not part of that. */
function comparable(request: MaintenanceRequest | undefined): string {
  if (!request) return 'null';
  const { slack: _where, ...rest } = request;
  return JSON.stringify(rest);
}

const hasCode = (error: unknown, code: string): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;

/** Conflict errors from the kube adapter carry code 'conflict' (409). */
export const isConflict = (error: unknown): boolean => hasCode(error, 'conflict');

/** Not-found errors from the kube adapter carry code 'not_found' (404). */
const isNotFound = (error: unknown): boolean => hasCode(error, 'not_found');

/** Record that `what` was reported, and report it; a lost race means the next tick says it instead. */
export async function announce(
  deps: PersistDeps,
  node: Stored,
  request: MaintenanceRequest,
  what: string,
  report: Report,
): Promise<boolean> {
  const next = { ...request, announced: [...(request.announced ?? []), what] };
  const outcome = await persist(deps, node, { ok: true, changed: true, request: next }, report);
  return outcome.status === 'written';
}
