/**
 * The prom-client side of the samples: the fleet's gauges from one read of the cluster (the same
 * FleetView `kubemaint status` prints), and a tick's duration and outcome. No API calls here: the
 * caller passes what it read.
 */
import type { FleetView } from '../../app/control/fleet-view.js';
import { FLEET_GAUGES } from './catalog.js';
import type { Metrics } from './registry.js';
import { fleetSamples, tickSamples } from './samples.js';

/** Replaces the fleet's gauges: a node the read no longer includes loses its series. */
export function observeFleet(metrics: Metrics, view: FleetView): void {
  metrics.reset(FLEET_GAUGES);
  metrics.record(fleetSamples(view));
}

/** Times one tick: duration always, the error counter on a throw, the timestamp on success. */
export async function timeTick<T>(
  metrics: Metrics,
  clock: { now(): Date },
  tick: () => Promise<T>,
): Promise<T> {
  const started = clock.now().getTime();
  let ok = false;
  try {
    const result = await tick();
    ok = true;
    return result;
  } finally {
    const endedAt = clock.now();
    metrics.record(tickSamples({ seconds: (endedAt.getTime() - started) / 1000, ok, endedAt }));
  }
}
