/**
 * In which order approved requests are dispatched: oldest approval first, then node name, then
 * request id (and as a last resort the request's JSON), so two ticks pick the same nodes whatever order
 * the cluster listed them in (SUC sorts for the same reason). Approvals are compared by the minute
 * they were given in (ADR 0031): a tick that auto-approves a campaign writes them milliseconds apart
 * in whatever order the requests were listed (random ids), so the milliseconds would make the order
 * a draw; within a minute, node name decides, which people and `kubemaint rehearse` can foresee. How many may run is the policy's slot
 * gate (policy.ts, one concurrency rule with pools) and the executor's Lease slots; not this file.
 */
import type { MaintenanceRequest } from './request.js';

/** When the request became approved: its history says; older records fall back to approvals. */
export function approvedAt(request: MaintenanceRequest): string {
  const entry = request.history.findLast((t) => t.to === 'approved');
  return entry?.at ?? request.approvals.at(-1)?.at ?? request.createdAt;
}

// Plain code-unit comparison: locale-aware sorting could differ between machines.
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const MINUTE = 60_000;
/** Earlier minute first; within one minute a tie (unparseable instants: as text). */
const cmpMinute = (a: string, b: string): number => {
  const [x, y] = [Date.parse(a), Date.parse(b)];
  if (Number.isNaN(x) || Number.isNaN(y)) return cmp(a, b);
  return Math.sign(Math.floor(x / MINUTE) - Math.floor(y / MINUTE));
};

/** Dispatch order: oldest approval minute first, then node name, then request id (stable across listings). */
export function compare(a: MaintenanceRequest, b: MaintenanceRequest): number {
  return (
    cmpMinute(approvedAt(a), approvedAt(b)) ||
    cmp(a.node, b.node) ||
    cmp(a.id, b.id) ||
    cmp(JSON.stringify(a), JSON.stringify(b))
  );
}
