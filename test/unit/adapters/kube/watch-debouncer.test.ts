import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { pino } from 'pino';
import { debouncer } from '../../../../src/adapters/kube/watch-trigger.js';

/** A debouncer on mocked timers, and the calls it made. */
function setup(options: { debounceMs?: number; maxWaitMs?: number } = {}) {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const calls: string[][] = [];
  const d = debouncer({
    onChange: (changes) => calls.push(changes),
    log: pino({ level: 'silent' }),
    ...options,
  });
  return { d, calls, tick: (ms: number) => mock.timers.tick(ms) };
}

describe('watch debouncer', () => {
  it('passes a change after a quiet spell on at once, and the burst after it as one call', (t) => {
    t.after(() => mock.timers.reset());
    const { d, calls, tick } = setup({ debounceMs: 200 });
    d.add('node back');
    assert.deepEqual(calls, [['node back']], 'the first change of a quiet spell waits for nothing');
    d.add('job done');
    tick(100);
    d.add('lease freed');
    tick(199);
    assert.equal(calls.length, 1, 'the burst is still going');
    tick(1);
    assert.deepEqual(calls, [['node back'], ['job done', 'lease freed']]);
    // Quiet again: the next change is passed on at once.
    tick(200);
    d.add('next');
    assert.deepEqual(calls.at(-1), ['next']);
  });

  it('a change less than a spell after the last is held for the burst, not passed on at once', (t) => {
    t.after(() => mock.timers.reset());
    const { d, calls, tick } = setup({ debounceMs: 200 });
    d.add('a');
    tick(150);
    d.add('b');
    assert.deepEqual(calls, [['a']]);
    tick(200);
    assert.deepEqual(calls, [['a'], ['b']]);
  });

  it('a storm still gets a call every maxWaitMs', (t) => {
    t.after(() => mock.timers.reset());
    const { d, calls, tick } = setup({ debounceMs: 200, maxWaitMs: 1_000 });
    d.add('first');
    for (let i = 0; i < 30; i++) {
      tick(100);
      d.add(`c${i}`);
    }
    // 3 s of changes every 100 ms: the leading call, then one at least every second.
    assert.ok(calls.length >= 3, `${calls.length} calls`);
    assert.deepEqual(calls[0], ['first']);
    // Each change is passed on once, in order, when the storm ends.
    tick(200);
    assert.deepEqual(calls.flat(), ['first', ...Array.from({ length: 30 }, (_, i) => `c${i}`)]);
  });

  it('an urgent change inside a burst is passed on at once, with the burst held so far', (t) => {
    t.after(() => mock.timers.reset());
    const { d, calls, tick } = setup({ debounceMs: 200 });
    d.add('request done');
    d.add('node uncordoned');
    tick(50);
    d.add('node-7 back', true);
    assert.deepEqual(calls, [['request done'], ['node uncordoned', 'node-7 back']]);
    // Nothing is left pending, and the spell goes on: the next change waits for its end.
    tick(100);
    d.add('slot freed');
    tick(199);
    assert.equal(calls.length, 2);
    tick(1);
    assert.deepEqual(calls.at(-1), ['slot freed']);
  });

  it('stop drops what is pending and passes nothing on after', (t) => {
    t.after(() => mock.timers.reset());
    const { d, calls, tick } = setup();
    d.add('a');
    d.add('b');
    d.stop();
    tick(5_000);
    d.add('c');
    assert.deepEqual(calls, [['a']]);
  });
});
