import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, parseDuration } from '../../../src/core/duration.js';

describe('parseDuration', () => {
  const cases: [string | number, number | undefined][] = [
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['300', 300_000],
    [45, 45_000],
    ['', undefined],
    ['15 minutes', undefined],
    ['-5m', undefined],
    ['m', undefined],
    [-1, undefined],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} → ${String(want)}`, () =>
      assert.equal(parseDuration(input), want));
  }
});

describe('formatDuration', () => {
  it('formats compound durations', () => assert.equal(formatDuration(3_725_000), '1h2m5s'));
  it('formats sub-second durations', () => assert.equal(formatDuration(250), '250ms'));
  it('round-trips through parseDuration', () =>
    assert.equal(parseDuration(formatDuration(93_784_000)), 93_784_000));
});
