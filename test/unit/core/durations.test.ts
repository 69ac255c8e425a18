/** Observed durations (core/durations.ts): the estimate, the bounded book, the words people read. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_KEYS,
  addSample,
  describeFit,
  describeSource,
  durationKey,
  estimateDuration,
  minutes,
  observedDuration,
  type DurationBook,
} from '../../../src/core/durations.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';

const MIN = 60_000;
const sample = (m: number, i = 0) => ({
  ms: m * MIN,
  at: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(),
  node: `n${i}`,
});
const learning = { percentile: 90, samples: 20 };

describe('estimateDuration', () => {
  it('is the config until there is a sample of this action and pool', () => {
    const book: DurationBook = { 'upgrade/': [sample(30)], 'reboot/blue': [sample(4)] };
    assert.deepEqual(estimateDuration(book, 'reboot/', learning, 10 * MIN), {
      ms: 10 * MIN,
      source: 'config',
      samples: 0,
    });
    assert.deepEqual(estimateDuration(book, 'reboot/blue', learning, 10 * MIN), {
      ms: 4 * MIN,
      source: 'observed',
      samples: 1,
    });
  });

  it('takes the nearest-rank percentile of the last samples only', () => {
    const minutesSeen = [5, 6, 7, 5, 6, 7, 5, 6, 7, 30];
    const book: DurationBook = { 'reboot/': minutesSeen.map((m, i) => sample(m, i)) };
    // p90 of ten samples is the 9th smallest: one slow node in ten does not set the estimate.
    assert.equal(estimateDuration(book, 'reboot/', learning, 0).ms, 7 * MIN);
    assert.equal(
      estimateDuration(book, 'reboot/', { ...learning, percentile: 100 }, 0).ms,
      30 * MIN,
    );
    // Only the last three: 6, 7, 30.
    assert.equal(estimateDuration(book, 'reboot/', { percentile: 50, samples: 3 }, 0).ms, 7 * MIN);
  });
});

describe('addSample', () => {
  it('keeps the last samples of a key', () => {
    let book: DurationBook = {};
    for (let i = 0; i < 30; i++) book = addSample(book, 'reboot/', sample(i, i), 20);
    assert.equal(book['reboot/']?.length, 20);
    assert.equal(book['reboot/']?.[0]?.ms, 10 * MIN);
  });

  it('keeps at most MAX_KEYS keys, dropping the one updated longest ago', () => {
    let book: DurationBook = {};
    for (let i = 0; i <= MAX_KEYS; i++) book = addSample(book, `reboot/p${i}`, sample(1, i), 5);
    assert.equal(Object.keys(book).length, MAX_KEYS);
    assert.equal(book['reboot/p0'], undefined);
    assert.ok(book[`reboot/p${MAX_KEYS}`]);
  });
});

describe('observedDuration', () => {
  const request = (history: MaintenanceRequest['history']) =>
    ({ history }) as unknown as MaintenanceRequest;
  it('counts from the last time it started running to the proof', () => {
    const r = request([
      { from: 'approved', to: 'running', at: '2026-11-01T02:00:00Z', by: 'kubemaint' },
      { from: 'running', to: 'verifying', at: '2026-11-01T02:05:00Z', by: 'executor' },
    ]);
    assert.equal(observedDuration(r, new Date('2026-11-01T02:07:30Z')), 7.5 * MIN);
  });
  it('is nothing for a request that never ran', () => {
    assert.equal(observedDuration(request([]), new Date()), undefined);
  });
});

describe('the words', () => {
  it('says whether it fits, in minutes', () => {
    const now = new Date('2026-11-01T02:00:00Z');
    const closes = new Date('2026-11-01T02:42:30Z');
    assert.equal(describeFit(6.2 * MIN, closes, now), 'fits: about 7 min, window closes in 42 min');
    assert.equal(
      describeFit(50 * MIN, closes, now),
      'does not fit: about 50 min, window closes in 42 min',
    );
    assert.equal(describeFit(6 * MIN, undefined, now), 'takes about 6 min');
    assert.equal(minutes(125 * MIN), '2 h 5 min');
    assert.equal(minutes(120 * MIN), '2 h');
  });
  it('says where the estimate comes from', () => {
    const observed = { ms: 1, source: 'observed' as const, samples: 12 };
    assert.equal(
      describeSource(observed, 'reboot', 'blue', 90),
      'p90 of the last 12 reboots in pool blue',
    );
    assert.equal(
      describeSource({ ...observed, samples: 1 }, 'upgrade', undefined, 90),
      'the last upgrade',
    );
    assert.equal(
      describeSource({ ms: 1, source: 'config', samples: 0 }, 'reboot', undefined, 90),
      'reboot.expectedDuration; nothing observed yet',
    );
    assert.equal(durationKey('reboot', undefined), 'reboot/');
  });
});
