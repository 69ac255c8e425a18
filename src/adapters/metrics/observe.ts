/**
 * The prom-client side of the samples: the fleet's gauges from one read of the cluster (the same
 * FleetView `kubemaint status` prints), and a tick's duration and outcome. No API calls here: the
 * caller passes what it read.
 */
import type { FleetView } from '../../app/control/fleet-view.js';
import { FLEET_GAUGES } from './catalog.js';
import type { Metrics } from './registry.js';
import { fleetSamples, tickSamples } from './samples.js';
import { withCluster } from './cluster-label.js';

/** Replaces the fleet's gauges: a node the read no longer includes loses its series. */
export function observeFleet(metrics: Metrics, view: FleetView): void {
  metrics.reset(FLEET_GAUGES);
  metrics.record(fleetSamples(view));
}

/**
 * Several clusters (`clusters:`): every cluster's gauges from its last view, each series labelled
 * with its cluster, replaced together so one cluster's read never drops another's series.
 */
export function observeFleets(metrics: Metrics, views: readonly FleetView[]): void {
  metrics.reset(FLEET_GAUGES);
  for (const view of views) metrics.record(withCluster(fleetSamples(view), view.cluster));
}

/**
 * Times one tick: duration always, the error counter on a throw, the timestamp on success.
 * `cluster`: the tick's cluster, when the config lists several.
 */
export async function timeTick<T>(
  metrics: Metrics,
  clock: { now(): Date },
  tick: () => Promise<T>,
  cluster?: string,
): Promise<T> {
  const started = clock.now().getTime();
  let ok = false;
  try {
    const result = await tick();
    ok = true;
    return result;
  } finally {
    const endedAt = clock.now();
    const samples = tickSamples({ seconds: (endedAt.getTime() - started) / 1000, ok, endedAt });
    metrics.record(cluster === undefined ? samples : withCluster(samples, cluster));
  }
}
