/**
 * What the tick Lambda measures after each tick, written as CloudWatch EMF lines (ADR 0016): the
 * tick's duration and outcome, and, after a tick that succeeded, the fleet's gauges from one read of
 * the cluster (the FleetView `kubemaint status` prints, so CloudWatch and status agree). A failed
 * read costs the metrics of that minute, never the tick.
 */
import { readFleetView } from '../../app/control/fleet-view.js';
import type { TickDeps } from '../../app/control/tick.js';
import type { Sample } from '../../adapters/metrics/catalog.js';
import { emfLines } from '../../adapters/metrics/emf.js';
import { fleetSamples, tickSamples } from '../../adapters/metrics/samples.js';
import type { Logger } from '../../log.js';

export async function writeTickMetrics(
  deps: TickDeps,
  tick: { startedAt: Date; ok: boolean },
  options: { write: (line: string) => void; log: Logger },
): Promise<void> {
  const endedAt = deps.clock.now();
  const seconds = (endedAt.getTime() - tick.startedAt.getTime()) / 1000;
  const samples: Sample[] = tickSamples({ seconds, ok: tick.ok, endedAt });
  if (tick.ok) {
    try {
      samples.push(...fleetSamples(await readFleetView(deps)));
    } catch (error) {
      options.log.warn({ err: error }, 'fleet metrics not written: the cluster read failed');
    }
  }
  const dimensions = { cluster: deps.settings.cluster };
  for (const line of emfLines(samples, { at: endedAt, dimensions })) options.write(line);
}
