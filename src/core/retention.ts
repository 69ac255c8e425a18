/**
 * Retention of ended requests (issue 32): which ended requests to delete, beyond an age and beyond
 * a count per node, and which label each request should carry so the tick lists only those it
 * must look at. Pure: the app reads the requests, this decides, the app writes.
 *
 * A request's phase label (`kubemaint.io/phase`) is what keeps the tick's read bounded:
 * - `open`: active, or ended by the executor and not reported yet: the tick works on it;
 * - `quiet`: ended other than done and still the node's newest: detection keeps the node quiet
 *   for a while after it (core/detect.ts), so the tick still reads it;
 * - `ended`: nothing the tick does depends on it any more; only history readers list it.
 * The tick lists `phase!=ended`, so an object without the label (written before labels existed)
 * is read as it was before, until a retention sweep labels it.
 */
import { formatDuration } from './duration.js';
import { endedUnreported, isActive, type MaintenanceRequest } from './request.js';

export const REQUEST_PHASES = ['open', 'quiet', 'ended'] as const;
export type RequestPhase = (typeof REQUEST_PHASES)[number];

export interface RetentionSettings {
  /** Ended requests older than this (since they ended) are deleted. */
  maxAgeMs: number;
  /** At most this many ended requests are kept per node, the newest. */
  keepPerNode: number;
}

/** The label a request gets when it is written, from its own state alone. */
export function phaseOf(request: MaintenanceRequest): RequestPhase {
  if (isActive(request.state) || endedUnreported(request)) return 'open';
  return request.state === 'done' ? 'ended' : 'quiet';
}

export interface LabelledRequest {
  request: MaintenanceRequest;
  /** The label the object carries now; undefined on objects written before labels existed. */
  phase: RequestPhase | undefined;
}

export interface RetentionPlan {
  /** Ended requests to delete (with their decisions), oldest first. */
  remove: MaintenanceRequest[];
  /** Requests whose label is not what it should be (a one-time relabel of old objects, too). */
  relabel: { id: string; phase: RequestPhase }[];
}

/**
 * What a sweep does now. A `quiet` request stays quiet while it is its node's newest and within
 * `reproposeAfterMs` of its end; it is never deleted while quiet (deleting it would let detection
 * propose again at once). At most `limit` deletions, oldest first, so one sweep's work is bounded.
 */
export function planRetention(
  requests: readonly LabelledRequest[],
  settings: RetentionSettings & { reproposeAfterMs: number; limit: number },
  now: Date,
): RetentionPlan {
  const byNode = new Map<string, LabelledRequest[]>();
  for (const entry of requests)
    byNode.set(entry.request.node, [...(byNode.get(entry.request.node) ?? []), entry]);
  const remove: MaintenanceRequest[] = [];
  const relabel: RetentionPlan['relabel'] = [];
  const oldest = now.getTime() - settings.maxAgeMs;
  for (const entries of byNode.values()) {
    const newestFirst = [...entries].sort((a, b) => newer(b.request, a.request));
    const newestId = newestFirst[0]?.request.id;
    let endedKept = 0;
    for (const { request, phase } of newestFirst) {
      const want = settledPhase(request, request.id === newestId, settings.reproposeAfterMs, now);
      if (want === 'ended') {
        const beyond = endedKept >= settings.keepPerNode || endedAt(request) < oldest;
        if (beyond) {
          remove.push(request);
          continue;
        }
      }
      if (want !== 'open') endedKept++;
      if (want !== phase) relabel.push({ id: request.id, phase: want });
    }
  }
  remove.sort((a, b) => newer(a, b));
  return { remove: remove.slice(0, settings.limit), relabel };
}

/** The label a request should carry, knowing its node's other requests and the time. */
function settledPhase(
  request: MaintenanceRequest,
  newestOfNode: boolean,
  reproposeAfterMs: number,
  now: Date,
): RequestPhase {
  const phase = phaseOf(request);
  if (phase !== 'quiet') return phase;
  const quiet = newestOfNode && endedAt(request) + reproposeAfterMs > now.getTime();
  return quiet ? 'quiet' : 'ended';
}

/** When it ended (its last write); a request's updatedAt is an ISO instant. */
const endedAt = (request: MaintenanceRequest): number => Date.parse(request.updatedAt);

/** > 0 when `a` was created after `b` (ids break ties, so the order is total). */
function newer(a: MaintenanceRequest, b: MaintenanceRequest): number {
  return a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

/** One line that says what a request was, kept after it is deleted (an Event, the history). */
export function summaryLine(request: MaintenanceRequest): string {
  const ended = request.history.at(-1);
  const approvers = request.approvals.map((a) => a.by).join(', ');
  const took = Date.parse(request.updatedAt) - Date.parse(request.createdAt);
  return [
    request.updatedAt.slice(0, 16).replace('T', ' '),
    request.id,
    `${request.action}${request.targetVersion ? ` ${request.targetVersion}` : ''}`,
    request.state,
    approvers ? `approved by ${approvers}` : 'no approval',
    Number.isFinite(took) && took >= 0 ? `took ${formatDuration(took)}` : undefined,
    ended?.note ? `(${ended.note.replace(/\s+/g, ' ').slice(0, 120)})` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
}
