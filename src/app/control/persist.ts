/**
 * Writing a request back: every transition is a conditional write on the node's resourceVersion, so
 * two ticks (or a tick and a click) cannot both win. A lost race is not an error: the winner's write
 * stands and the next tick decides again from what the cluster says.
 */
import type { TransitionResult } from '../../core/approval.js';
import type { EventKind, MaintenanceEvent } from '../../core/events.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { ClusterPort, Notifier } from './ports.js';

export interface PersistDeps {
  cluster: ClusterPort;
  notifier: Notifier;
  clusterName: string;
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

export type PersistOutcome =
  | { status: 'written'; request: MaintenanceRequest; resourceVersion: string }
  | { status: 'unchanged'; request: MaintenanceRequest }
  | { status: 'lost-race' }
  | { status: 'refused'; code: string; message: string };

/** How often a write is retried when the node changed but its request did not (heartbeats, labels). */
const CONFLICT_RETRIES = 10;

export async function persist(
  deps: PersistDeps,
  node: { name: string; resourceVersion: string; request?: MaintenanceRequest | undefined },
  result: TransitionResult,
  report?: Report,
): Promise<PersistOutcome> {
  if (!result.ok)
    return { status: 'refused', code: result.error.code, message: result.error.message };
  if (!result.changed) return { status: 'unchanged', request: result.request };
  const expected = comparable(node.request);
  let resourceVersion = node.resourceVersion;
  let request = result.request;
  for (let attempt = 0; ; attempt++) {
    try {
      resourceVersion = await deps.cluster.writeRequest(node.name, resourceVersion, request);
      break;
    } catch (error) {
      if (!isConflict(error)) throw error;
      if (attempt >= CONFLICT_RETRIES) return { status: 'lost-race' };
      // The node moved on. If only other fields changed (a kubelet heartbeat, a label), the decision
      // still holds: write again on the new version. If the request itself changed, someone else won.
      const fresh = await deps.cluster.getNode(node.name);
      if (!fresh || comparable(fresh.request) !== expected) return { status: 'lost-race' };
      // The Slack notifier records where the prompt lives right after posting it: keep that.
      if (fresh.request?.slack && !request.slack)
        request = { ...request, slack: fresh.request.slack };
      resourceVersion = fresh.resourceVersion;
    }
  }
  if (report) await tell(deps, request, report);
  return { status: 'written', request, resourceVersion };
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

/** Conflict errors from the kube adapter carry code 'conflict' (409). */
export const isConflict = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'conflict';

/** Record that `what` was reported, and report it; a lost race means the next tick says it instead. */
export async function announce(
  deps: PersistDeps,
  node: { name: string; resourceVersion: string; request?: MaintenanceRequest | undefined },
  request: MaintenanceRequest,
  what: string,
  report: Report,
): Promise<boolean> {
  const next = { ...request, announced: [...(request.announced ?? []), what] };
  const outcome = await persist(deps, node, { ok: true, changed: true, request: next }, report);
  return outcome.status === 'written';
}
