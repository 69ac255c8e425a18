import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createManualClock, createScaledClock } from '../../src/clock.js';

describe('manual clock', () => {
  it('runs timers in due order, then creation order, as time advances', () => {
    const clock = createManualClock();
    const ran: string[] = [];
    clock.after(300, () => ran.push('c'));
    clock.after(100, () => ran.push('a'));
    clock.after(100, () => ran.push('b'));
    clock.advance(99);
    assert.deepEqual(ran, []);
    clock.advance(1);
    assert.deepEqual(ran, ['a', 'b']);
    clock.advance(1_000);
    assert.deepEqual(ran, ['a', 'b', 'c']);
  });

  it('shows each timer its own due time as now', () => {
    const clock = createManualClock({ start: new Date('2026-01-01T00:00:00Z') });
    const seen: string[] = [];
    clock.after(1_500, () => seen.push(clock.now().toISOString()));
    clock.advance(10_000);
    assert.deepEqual(seen, ['2026-01-01T00:00:01.500Z']);
    assert.equal(clock.now().toISOString(), '2026-01-01T00:00:10.000Z');
  });

  it('runs timers that timers schedule within the same advance', () => {
    const clock = createManualClock();
    const ran: number[] = [];
    clock.after(10, () => {
      ran.push(1);
      clock.after(10, () => ran.push(2));
      clock.after(0, () => ran.push(3));
    });
    clock.advance(20);
    assert.deepEqual(ran, [1, 3, 2]);
  });

  it('repeats `every` timers and stops them when cancelled', () => {
    const clock = createManualClock();
    let count = 0;
    const cancel = clock.every(1_000, () => count++);
    clock.advance(3_500);
    assert.equal(count, 3);
    cancel();
    clock.advance(10_000);
    assert.equal(count, 3);
    assert.equal(clock.pending(), 0);
  });

  it('never runs a cancelled timer, and stop() drops everything', () => {
    const clock = createManualClock();
    let ran = false;
    const cancel = clock.after(5, () => (ran = true));
    clock.after(50, () => (ran = true));
    cancel();
    clock.advance(10);
    assert.equal(ran, false);
    clock.stop();
    clock.advance(100);
    assert.equal(ran, false);
  });
});

describe('scaled clock', () => {
  it('runs sim time `scale` times faster than wall time', async () => {
    const clock = createScaledClock({ scale: 1_000 });
    try {
      const start = clock.now().getTime();
      const fired = await new Promise<number>((resolve) =>
        clock.after(30_000, () => resolve(clock.now().getTime())),
      );
      assert.ok(fired - start >= 30_000, 'not before its sim due time');
      assert.ok(clock.now().getTime() - start < 600_000, 'not absurdly late either');
    } finally {
      clock.stop();
    }
  });

  it('slows sim time down across an event-loop stall instead of jumping', async () => {
    const clock = createScaledClock({ scale: 100, maxStepMs: 50 });
    try {
      await new Promise((r) => setTimeout(r, 20));
      const before = clock.now().getTime();
      const until = performance.now() + 400; // block the loop: 400 ms would be 40 s of sim time
      while (performance.now() < until) {
        /* stall */
      }
      await new Promise((r) => setTimeout(r, 15));
      const jumped = clock.now().getTime() - before;
      assert.ok(jumped <= 15_000, `advanced ${jumped} sim ms across a 400 ms stall`);
    } finally {
      clock.stop();
    }
  });

  it('refuses a scale that is not a positive number', () => {
    assert.throws(() => createScaledClock({ scale: 0 }), /positive number/);
    assert.throws(() => createScaledClock({ scale: Number.NaN }), /positive number/);
  });
});
