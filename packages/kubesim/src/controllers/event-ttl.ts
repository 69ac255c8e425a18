/**
 * Event expiry: kube-apiserver stores every Event with an etcd lease of `--event-ttl` (one hour), so
 * Events vanish an hour after they were last written. The sim sweeps on its resync period instead.
 */
import { EVENT_TTL_MS, sweepEvents } from '../events.js';
import type { ControllerContext, Stop } from './context.js';

export function startEventTtl(ctx: ControllerContext, ttlMs = EVENT_TTL_MS): Stop {
  return ctx.clock.every(
    ctx.delays.resyncMs,
    () => void sweepEvents(ctx.store, ctx.clock.now(), ttlMs),
  );
}
