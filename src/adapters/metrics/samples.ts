/**
 * What kubemaint measures, as samples of the catalog's metrics: the fleet's gauges from one read of
 * the cluster (the FleetView that `kubemaint status` prints), durations and outcomes from reports,
 * and a tick's own duration. Pure, and free of prom-client: `serve` applies the samples to its
 * registry, the Lambda functions write them as EMF lines (ADR 0016).
 */
import type { MaintenanceEvent } from '../../core/events.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { heldSlots, stateCounts, type FleetView } from '../../app/control/fleet-view.js';
import type { Sample } from './catalog.js';

const flag = (on: boolean): number => (on ? 1 : 0);

/**
 * The fleet gauges. `kubemaint_reboot_required` has a series for each node the read included that is
 * marked or carries a request (kured has one per node it runs on); every state has a series, 0 when
 * none, so rates and alerts on `kubemaint_requests{state="failed"}` never see a missing series.
 */
export function fleetSamples(view: FleetView): Sample[] {
  const withRequest = new Set(view.requests.map((r) => r.node));
  return [
    ...view.nodes
      .filter((node) => node.marked || withRequest.has(node.name))
      .map((node): Sample => ({
        name: 'kubemaint_reboot_required',
        labels: { node: node.name },
        value: flag(node.marked),
      })),
    ...Object.entries(stateCounts(view)).map(([state, value]): Sample => ({
      name: 'kubemaint_requests',
      labels: { state },
      value,
    })),
    { name: 'kubemaint_slots_in_use', value: heldSlots(view).length },
    { name: 'kubemaint_slots_total', value: view.slots.length },
    { name: 'kubemaint_paused', value: flag(view.pause.paused) },
    { name: 'kubemaint_window_open', value: flag(view.window.open) },
  ];
}

/**
 * A report's durations and outcome: `back` closes the host step (reboot or upgrade), `done` closes
 * the drain and the whole maintenance, `failed` counts a failure. Durations come from the request's
 * own record (the `running` transition, `hostCommandIssuedAt`), so they measure the disruptive part
 * and not the time a proposal waited for approval; an event's `durationMs` is the fallback.
 */
export function eventSamples(event: MaintenanceEvent, request: MaintenanceRequest): Sample[] {
  const labels = { action: event.action };
  const at = Date.parse(event.at ?? request.updatedAt);
  const started = runningSince(request);
  const issued = request.hostCommandIssuedAt ? Date.parse(request.hostCommandIssuedAt) : NaN;
  const seconds = (from: number, to: number) => (to - from) / 1000;
  const fallback = (event.durationMs ?? NaN) / 1000;
  const samples: Sample[] = [];
  const measured = (name: Sample['name'], value: number) => {
    if (value >= 0) samples.push({ name, labels, value });
  };
  if (event.kind === 'back') {
    measured(
      'kubemaint_reboot_duration_seconds',
      Number.isFinite(issued) ? seconds(issued, at) : fallback,
    );
  } else if (event.kind === 'done') {
    samples.push(finished(event, 'done'));
    measured(
      'kubemaint_maintenance_duration_seconds',
      Number.isFinite(started) ? seconds(started, at) : fallback,
    );
    measured('kubemaint_drain_duration_seconds', seconds(started, issued));
  } else if (event.kind === 'failed') {
    samples.push(finished(event, 'failed'));
  }
  return samples;
}

const finished = (event: MaintenanceEvent, outcome: string): Sample => ({
  name: 'kubemaint_requests_finished_total',
  labels: { action: event.action, outcome },
  value: 1,
});

/** When the request last moved to `running` (the executor Job was created). */
function runningSince(request: MaintenanceRequest): number {
  const entry = request.history.findLast((t) => t.to === 'running');
  return entry ? Date.parse(entry.at) : NaN;
}

/** One tick: its duration always, an error counted on failure, the timestamp on success. */
export function tickSamples(tick: { seconds: number; ok: boolean; endedAt: Date }): Sample[] {
  return [
    { name: 'kubemaint_tick_duration_seconds', value: tick.seconds },
    tick.ok
      ? { name: 'kubemaint_last_tick_timestamp_seconds', value: tick.endedAt.getTime() / 1000 }
      : { name: 'kubemaint_tick_errors_total', value: 1 },
  ];
}

/** Enough to ignore a repeated report; old entries go first. */
const REMEMBERED = 1_000;

/**
 * Each request's report of each kind once, even if reported twice (a retried write): a duration
 * observed twice would skew the histogram. For the notifiers of serve and the Lambda functions.
 */
export function onceEach(): (event: MaintenanceEvent) => boolean {
  const seen = new Set<string>();
  return (event) => {
    const key = `${event.requestId}:${event.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    if (seen.size > REMEMBERED) seen.delete(seen.values().next().value!);
    return true;
  };
}
