import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFleetRefresher } from '../../../src/app/control/fleet-refresh.js';
import type { FleetView } from '../../../src/app/control/fleet-view.js';
import { fleetView } from '../../fakes/fleet.js';

/** A refresher on a manual clock: sleeping moves the clock, so the interval is exact and instant. */
function refresher(read: () => Promise<FleetView>) {
  let now = 0;
  const seen: FleetView[] = [];
  const errors: unknown[] = [];
  const slept: number[] = [];
  const fleet = createFleetRefresher({
    read,
    onView: (view) => seen.push(view),
    onError: (error) => errors.push(error),
    now: () => new Date(now),
    sleep: (ms, signal) => {
      slept.push(ms);
      if (!signal.aborted) now += ms;
      return Promise.resolve();
    },
    minIntervalMs: 2_000,
  });
  return { fleet, seen, errors, slept, advance: (ms: number) => (now += ms) };
}

describe('fleet refresher', () => {
  it('reads at once, and asks during a read make one more read, an interval later', async () => {
    let reads = 0;
    const { fleet, seen, slept } = refresher(async () => {
      reads += 1;
      await Promise.resolve();
      return fleetView({ at: String(reads) });
    });
    fleet.refresh();
    fleet.refresh();
    fleet.refresh();
    await fleet.idle();
    assert.equal(reads, 2);
    assert.deepEqual(slept, [2_000]);
    assert.deepEqual(
      seen.map((v) => v.at),
      ['1', '2'],
    );
    assert.equal(fleet.latest()?.at, '2');
  });

  it('a failed read is reported and the last view kept', async () => {
    let fail = false;
    const { fleet, errors, advance } = refresher(() =>
      fail ? Promise.reject(new Error('apiserver down')) : Promise.resolve(fleetView()),
    );
    fleet.refresh();
    await fleet.idle();
    fail = true;
    advance(5_000);
    fleet.refresh();
    await fleet.idle();
    assert.equal(errors.length, 1);
    assert.ok(fleet.latest());
  });

  it('stops: no read after stop, and a pending one is dropped', async () => {
    let reads = 0;
    const { fleet } = refresher(() => Promise.resolve(fleetView({ at: String(++reads) })));
    fleet.refresh();
    await fleet.stop();
    fleet.refresh();
    await fleet.idle();
    assert.ok(reads <= 1);
  });
});
