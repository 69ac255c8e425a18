/**
 * In which order approved requests are dispatched: oldest approval first, then node name, then
 * request id (and as a last resort the request's JSON), so two ticks pick the same nodes whatever order
 * the cluster listed them in (SUC sorts for the same reason). How many may run is the policy's slot
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
const cmpInstant = (a: string, b: string): number => {
  const diff = Date.parse(a) - Date.parse(b);
  return Number.isNaN(diff) || diff === 0 ? cmp(a, b) : Math.sign(diff);
};

/** Dispatch order: oldest approval first, then node name, then request id (stable across listings). */
export function compare(a: MaintenanceRequest, b: MaintenanceRequest): number {
  return (
    cmpInstant(approvedAt(a), approvedAt(b)) ||
    cmp(a.node, b.node) ||
    cmp(a.id, b.id) ||
    cmp(JSON.stringify(a), JSON.stringify(b))
  );
}
