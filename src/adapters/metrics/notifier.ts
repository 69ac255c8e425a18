/**
 * A Notifier that turns reports into duration metrics: `back` closes the host step (reboot or
 * upgrade), `done` closes the drain and the whole maintenance, `failed` counts a failure. Durations
 * come from the request's own record (the `running` transition, `hostCommandIssuedAt`), so they
 * measure the disruptive part and not the time a proposal waited for approval; an event's
 * `durationMs` is the fallback. Each request is observed once per kind even if reported twice.
 */
import type { MaintenanceEvent } from '../../core/events.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { Notifier } from '../../app/control/ports.js';
import type { Metrics } from './registry.js';

/** Enough to ignore a repeated report; old entries go first. */
const REMEMBERED = 1_000;

export function metricsNotifier(metrics: Metrics): Notifier {
  const seen = new Set<string>();
  const firstTime = (key: string): boolean => {
    if (seen.has(key)) return false;
    seen.add(key);
    if (seen.size > REMEMBERED) seen.delete(seen.values().next().value!);
    return true;
  };

  return {
    notify(event, request) {
      try {
        if (firstTime(`${event.requestId}:${event.kind}`)) observe(metrics, event, request);
      } catch {
        // A Notifier never throws (ports.ts): a metric is not worth failing a report for.
      }
      return Promise.resolve();
    },
  };
}

function observe(metrics: Metrics, event: MaintenanceEvent, request: MaintenanceRequest): void {
  const action = event.action;
  const at = Date.parse(event.at ?? request.updatedAt);
  const started = runningSince(request);
  const issued = request.hostCommandIssuedAt ? Date.parse(request.hostCommandIssuedAt) : NaN;
  const seconds = (from: number, to: number) => (to - from) / 1000;
  if (event.kind === 'back') {
    const took = Number.isFinite(issued) ? seconds(issued, at) : (event.durationMs ?? NaN) / 1000;
    if (took >= 0) metrics.hostDuration.observe({ action }, took);
  } else if (event.kind === 'done') {
    metrics.finished.inc({ action, outcome: 'done' });
    const total = Number.isFinite(started)
      ? seconds(started, at)
      : (event.durationMs ?? NaN) / 1000;
    if (total >= 0) metrics.maintenanceDuration.observe({ action }, total);
    const drain = seconds(started, issued);
    if (drain >= 0) metrics.drainDuration.observe({ action }, drain);
  } else if (event.kind === 'failed') {
    metrics.finished.inc({ action, outcome: 'failed' });
  }
}

/** When the request last moved to `running` (the executor Job was created). */
function runningSince(request: MaintenanceRequest): number {
  const entry = request.history.findLast((t) => t.to === 'running');
  return entry ? Date.parse(entry.at) : NaN;
}
