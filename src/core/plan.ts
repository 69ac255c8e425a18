/**
 * Which approved requests to dispatch now, and in what order. The order is stable and explained:
 * oldest approval first, then node name, then request id (and as a last resort the request's JSON), so
 * the same candidates give the same plan whatever order the cluster listed them in (SUC sorts for the
 * same reason). Walking that order, a request is dispatched when its node's expected duration
 * (drain + host command + verify) fits before the window closes, a global slot is free and its pool
 * is under its limit; every other request gets the reason it waits. A request skipped for its pool
 * does not hold back the ones behind it in other pools. Pure: the caller passes the facts and `now`.
 */
import type { Action, MaintenanceRequest } from './request.js';
import { formatDuration } from './duration.js';

export interface DurationEstimate {
  drainMs: number;
  /** The host command: the reboot, or the kubelet upgrade and its restart. */
  hostMs: number;
  verifyMs: number;
}

export interface PlanInput {
  /** Requests to consider; only `approved` ones are dispatched. */
  candidates: readonly MaintenanceRequest[];
  /** Node → pool (the configured pool label's value); falls back to `request.pool`. */
  pools?: Readonly<Record<string, string>>;
  /** Slots held now (running and verifying requests), in total and per pool. */
  inUse: { total: number; byPool?: Readonly<Record<string, number>> };
  /** The Lease count, and per-pool limits (pools without one are bounded only globally). */
  concurrency: {
    global: number;
    perPool?: Readonly<Record<string, number>>;
    defaultPerPool?: number;
  };
  estimates: Readonly<Record<Action, DurationEstimate>>;
  /** Measured durations per node (ms), preferred over the estimate. */
  expectedByNode?: Readonly<Record<string, number>>;
  /** Absent: no windows are configured, always open. */
  window?: { open: boolean; closesAt?: Date };
}

export interface PlannedRequest {
  request: MaintenanceRequest;
  /** 1-based place in line. */
  position: number;
  pool?: string;
  /** The instant the order is based on. */
  approvedAt: string;
  expectedMs: number;
  fitsWindow: boolean;
  dispatch: boolean;
  /** Why it goes now, or why it waits ("pool gpu at its limit 1"). */
  reason: string;
}

export interface Plan {
  order: PlannedRequest[];
  dispatch: MaintenanceRequest[];
  skipped: { request: MaintenanceRequest; reason: string }[];
}

/** The node's measured duration if known, else the action's estimate. */
export function expectedDuration(
  request: MaintenanceRequest,
  estimates: Readonly<Record<Action, DurationEstimate>>,
  expectedByNode?: Readonly<Record<string, number>>,
): number {
  const measured = expectedByNode?.[request.node];
  if (measured !== undefined) return measured;
  const e = estimates[request.action];
  return e.drainMs + e.hostMs + e.verifyMs;
}

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

const limitOf = (n: number): number => (Number.isFinite(n) ? Math.max(0, Math.floor(n)) : 0);

/** Order the candidates and choose the ones to dispatch now, explaining each. */
export function planDispatch(input: PlanInput, now: Date): Plan {
  const { concurrency, window } = input;
  const global = limitOf(concurrency.global);
  let free = global - input.inUse.total;
  const used = new Map(Object.entries(input.inUse.byPool ?? {}));
  const seenNodes = new Map<string, string>();
  // A node already being worked on must not get a second Job, wherever its request sorts.
  const busy = new Map(
    input.candidates
      .filter((r) => r.state === 'running' || r.state === 'verifying')
      .sort(compare)
      .map((r) => [r.node, r] as const),
  );
  const left = window?.closesAt ? window.closesAt.getTime() - now.getTime() : undefined;

  const order = [...input.candidates].sort(compare).map((request, index): PlannedRequest => {
    const pool = input.pools?.[request.node] ?? request.pool;
    const expectedMs = expectedDuration(request, input.estimates, input.expectedByNode);
    const fitsWindow = left === undefined || expectedMs <= left;
    const poolLimitRaw =
      pool === undefined ? undefined : (concurrency.perPool?.[pool] ?? concurrency.defaultPerPool);
    const poolLimit = poolLimitRaw === undefined ? undefined : limitOf(poolLimitRaw);
    const poolUsed = pool === undefined ? 0 : (used.get(pool) ?? 0);
    const earlier = seenNodes.get(request.node);
    if (earlier === undefined) seenNodes.set(request.node, request.id);

    let reason: string | undefined;
    if (request.state !== 'approved')
      reason = `request ${request.id} is ${request.state}; only approved requests are dispatched`;
    else if (busy.has(request.node))
      reason = `${request.node} is busy with request ${busy.get(request.node)?.id ?? '?'}`;
    else if (earlier !== undefined)
      reason = `${request.node} already has request ${earlier} ahead in line`;
    else if (window && !window.open) reason = 'window closed';
    else if (!fitsWindow)
      reason = `needs about ${formatDuration(expectedMs)} but the window closes in ${formatDuration(Math.max(0, left ?? 0))}`;
    else if (global === 0) reason = 'concurrency is 0: no node may start';
    else if (free <= 0) reason = `all ${global} slots in use`;
    else if (pool !== undefined && poolLimit !== undefined && poolUsed >= poolLimit)
      reason = `pool ${pool} at its limit ${poolLimit}`;

    const base = {
      request,
      position: index + 1,
      approvedAt: approvedAt(request),
      expectedMs,
      fitsWindow,
    };
    const withPool = pool === undefined ? base : { ...base, pool };
    if (reason !== undefined) return { ...withPool, dispatch: false, reason };
    free -= 1;
    if (pool !== undefined) used.set(pool, poolUsed + 1);
    const poolNote =
      pool === undefined ? '' : `; pool ${pool} ${poolUsed + 1} of ${poolLimit ?? '∞'}`;
    return {
      ...withPool,
      dispatch: true,
      reason: `dispatch now: slot ${global - free} of ${global}${poolNote}`,
    };
  });

  return {
    order,
    dispatch: order.filter((p) => p.dispatch).map((p) => p.request),
    skipped: order
      .filter((p) => !p.dispatch)
      .map((p) => ({ request: p.request, reason: p.reason })),
  };
}
