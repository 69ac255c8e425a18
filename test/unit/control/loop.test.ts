/**
 * The serve tick loop: ticks never overlap, kicks during a tick coalesce into one more tick, a skew
 * scan asked for during a tick is not lost, a failing tick is recorded and never thrown, and stop()
 * waits for the tick in flight.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTickLoop } from '../../../src/app/control/loop.js';
import type { TickReport } from '../../../src/app/control/tick.js';

const report: TickReport = { at: '', reconciled: [], dispatched: [], proposed: [], skipped: [] };

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('tick loop', () => {
  it('runs one tick at a time and coalesces kicks that arrive during a tick into one more', async () => {
    const calls: boolean[] = [];
    let running = 0;
    let maxRunning = 0;
    const first = gate();
    const loop = createTickLoop({
      now: () => new Date(),
      tick: async ({ skewScan }) => {
        calls.push(skewScan);
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        if (calls.length === 1) await first.opened;
        running -= 1;
        return report;
      },
    });
    loop.kick();
    for (let i = 0; i < 10; i++) loop.kick();
    loop.kick({ skewScan: true });
    first.open();
    await loop.idle();
    assert.deepEqual(calls, [false, true], 'the twelve kicks made two ticks; the scan was kept');
    assert.equal(maxRunning, 1);
    assert.equal(loop.status().ticks, 2);
  });

  it('records a failing tick without throwing, and the next tick clears the error', async () => {
    let fail = true;
    const errors: unknown[] = [];
    const loop = createTickLoop({
      now: () => new Date(),
      tick: () =>
        fail ? Promise.reject(new Error('apiserver unavailable')) : Promise.resolve(report),
      onError: (error) => errors.push(error),
    });
    loop.kick();
    await loop.idle();
    assert.equal(loop.status().failures, 1);
    assert.equal(loop.status().lastError, 'apiserver unavailable');
    assert.equal(errors.length, 1);
    fail = false;
    loop.kick();
    await loop.idle();
    assert.equal(loop.status().lastError, undefined);
    assert.ok(loop.status().lastSuccessAt);
  });

  it('stop() waits for the tick in flight and ignores later kicks', async () => {
    const slow = gate();
    let finished = false;
    let ticks = 0;
    const loop = createTickLoop({
      now: () => new Date(),
      tick: async () => {
        ticks += 1;
        await slow.opened;
        finished = true;
        return report;
      },
    });
    loop.kick();
    const stopping = loop.stop();
    loop.kick();
    setTimeout(slow.open, 20);
    await stopping;
    assert.equal(finished, true, 'the tick in flight finished before stop resolved');
    assert.equal(ticks, 1);
  });
});
