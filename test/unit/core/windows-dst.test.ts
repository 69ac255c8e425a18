/**
 * DST transitions of 2026 (from the zone rules):
 * - Europe/Berlin: 03-29 01:00Z 02:00 CET → 03:00 CEST (gap); 10-25 01:00Z 03:00 CEST → 02:00 CET (overlap).
 * - America/New_York: 03-08 07:00Z 02:00 EST → 03:00 EDT; 11-01 06:00Z 02:00 EDT → 01:00 EST.
 * - Australia/Lord_Howe (30-minute shift): 04-04 15:00Z 02:00 (+11) → 01:30 (+10:30);
 *   10-03 15:30Z 02:00 (+10:30) → 02:30 (+11).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import {
  closesAt,
  compileSchedule,
  isOpen,
  nextOpening,
  type WindowSpec,
} from '../../../src/core/windows.js';

interface DstCase {
  why: string;
  window: WindowSpec;
  /** Instants (UTC) and whether the schedule is open then. */
  open: [string, boolean][];
  /** From this instant, the next opening is `at`; from `at`, it closes at `closes`. */
  from: string;
  at: string;
  closes: string;
}

const weekly = (start: string, end: string, timezone: string, days = ['sun']): WindowSpec => ({
  days,
  start,
  end,
  timezone,
});
const cron = (expr: string, duration: string, timezone: string): WindowSpec => ({
  cron: expr,
  duration,
  timezone,
});
const BER = 'Europe/Berlin';
const NY = 'America/New_York';
const LH = 'Australia/Lord_Howe';

const cases: DstCase[] = [
  // Europe/Berlin
  {
    why: 'Berlin spring-forward: 02:00-04:00 opens when the clock jumps to 03:00 and lasts 1 real hour',
    window: weekly('02:00', '04:00', BER),
    open: [
      ['2026-03-29T00:59:59Z', false],
      ['2026-03-29T01:00:00Z', true],
      ['2026-03-29T01:59:59Z', true],
      ['2026-03-29T02:00:00Z', false],
    ],
    from: '2026-03-28T12:00:00Z',
    at: '2026-03-29T01:00:00Z',
    closes: '2026-03-29T02:00:00Z',
  },
  {
    why: 'Berlin spring-forward: a window wholly inside the gap (02:10-02:50) does not occur that day',
    window: weekly('02:10', '02:50', BER),
    open: [
      ['2026-03-29T01:00:00Z', false],
      ['2026-03-29T00:30:00Z', false],
    ],
    from: '2026-03-28T12:00:00Z',
    at: '2026-04-05T00:10:00Z',
    closes: '2026-04-05T00:50:00Z',
  },
  {
    why: 'Berlin spring-forward: cron 02:30 fires at the jump (node-cron would skip it) for the full 2h',
    window: cron('30 2 * * 0', '2h', BER),
    open: [
      ['2026-03-29T00:59:00Z', false],
      ['2026-03-29T01:00:00Z', true],
      ['2026-03-29T02:59:00Z', true],
    ],
    from: '2026-03-28T12:00:00Z',
    at: '2026-03-29T01:00:00Z',
    closes: '2026-03-29T03:00:00Z',
  },
  {
    why: 'Berlin fall-back: 01:00-04:00 lasts 4 real hours, open at both 02:30s',
    window: weekly('01:00', '04:00', BER),
    open: [
      ['2026-10-24T22:59:59Z', false],
      ['2026-10-25T00:30:00Z', true],
      ['2026-10-25T01:30:00Z', true],
      ['2026-10-25T03:00:00Z', false],
    ],
    from: '2026-10-24T12:00:00Z',
    at: '2026-10-24T23:00:00Z',
    closes: '2026-10-25T03:00:00Z',
  },
  {
    why: 'Berlin fall-back: 02:00-03:00 (the repeated hour) covers both passes: 2 real hours',
    window: weekly('02:00', '03:00', BER),
    open: [
      ['2026-10-24T23:59:59Z', false],
      ['2026-10-25T00:00:00Z', true],
      ['2026-10-25T01:59:59Z', true],
      ['2026-10-25T02:00:00Z', false],
    ],
    from: '2026-10-24T12:00:00Z',
    at: '2026-10-25T00:00:00Z',
    closes: '2026-10-25T02:00:00Z',
  },
  {
    why: 'Berlin fall-back: cron 02:30 fires at both 02:30s; the two hour-long openings merge',
    window: cron('30 2 * * 0', '1h', BER),
    open: [
      ['2026-10-25T00:29:00Z', false],
      ['2026-10-25T00:30:00Z', true],
      ['2026-10-25T02:29:00Z', true],
      ['2026-10-25T02:30:00Z', false],
    ],
    from: '2026-10-24T12:00:00Z',
    at: '2026-10-25T00:30:00Z',
    closes: '2026-10-25T02:30:00Z',
  },
  // America/New_York
  {
    why: 'New York spring-forward: 02:00-04:00 opens at 03:00 EDT, 1 real hour',
    window: weekly('02:00', '04:00', NY),
    open: [
      ['2026-03-08T06:59:59Z', false],
      ['2026-03-08T07:00:00Z', true],
      ['2026-03-08T08:00:00Z', false],
    ],
    from: '2026-03-07T12:00:00Z',
    at: '2026-03-08T07:00:00Z',
    closes: '2026-03-08T08:00:00Z',
  },
  {
    why: 'New York spring-forward: Saturday 23:00-03:00 wraps across the gap, 3 real hours',
    window: weekly('23:00', '03:00', NY, ['sat']),
    open: [
      ['2026-03-08T03:59:59Z', false],
      ['2026-03-08T04:00:00Z', true],
      ['2026-03-08T06:59:59Z', true],
      ['2026-03-08T07:00:00Z', false],
    ],
    from: '2026-03-07T12:00:00Z',
    at: '2026-03-08T04:00:00Z',
    closes: '2026-03-08T07:00:00Z',
  },
  {
    why: 'New York spring-forward: cron 02:30 fires at 03:00 EDT for the full 2h',
    window: cron('30 2 * * 0', '2h', NY),
    open: [
      ['2026-03-08T06:59:00Z', false],
      ['2026-03-08T07:00:00Z', true],
      ['2026-03-08T08:59:00Z', true],
      ['2026-03-08T09:00:00Z', false],
    ],
    from: '2026-03-07T12:00:00Z',
    at: '2026-03-08T07:00:00Z',
    closes: '2026-03-08T09:00:00Z',
  },
  {
    why: 'New York fall-back: 01:00-03:00 lasts 3 real hours, open at both 01:30s',
    window: weekly('01:00', '03:00', NY),
    open: [
      ['2026-11-01T04:59:59Z', false],
      ['2026-11-01T05:30:00Z', true],
      ['2026-11-01T06:30:00Z', true],
      ['2026-11-01T07:59:59Z', true],
      ['2026-11-01T08:00:00Z', false],
    ],
    from: '2026-10-31T12:00:00Z',
    at: '2026-11-01T05:00:00Z',
    closes: '2026-11-01T08:00:00Z',
  },
  {
    why: 'New York fall-back: cron 01:30 for 1h runs from 01:30 EDT to 02:30 EST',
    window: cron('30 1 * * 0', '1h', NY),
    open: [
      ['2026-11-01T05:29:00Z', false],
      ['2026-11-01T05:30:00Z', true],
      ['2026-11-01T06:45:00Z', true],
      ['2026-11-01T07:30:00Z', false],
    ],
    from: '2026-10-31T12:00:00Z',
    at: '2026-11-01T05:30:00Z',
    closes: '2026-11-01T07:30:00Z',
  },
  {
    why: 'New York fall-back: a sub-hourly cron keeps covering the repeated hour',
    window: cron('*/20 0-3 * * 0', '20m', NY),
    open: [
      ['2026-11-01T05:50:00Z', true],
      ['2026-11-01T06:10:00Z', true],
      ['2026-11-01T06:50:00Z', true],
    ],
    from: '2026-10-31T12:00:00Z',
    at: '2026-11-01T04:00:00Z',
    closes: '2026-11-01T09:00:00Z',
  },
  // Australia/Lord_Howe: the 30-minute shift
  {
    why: 'Lord Howe fall-back (30 min): 01:00-03:00 lasts 2.5 real hours, open at both 01:45s',
    window: weekly('01:00', '03:00', LH),
    open: [
      ['2026-04-04T13:59:59Z', false],
      ['2026-04-04T14:45:00Z', true],
      ['2026-04-04T15:15:00Z', true],
      ['2026-04-04T16:29:59Z', true],
      ['2026-04-04T16:30:00Z', false],
    ],
    from: '2026-04-04T00:00:00Z',
    at: '2026-04-04T14:00:00Z',
    closes: '2026-04-04T16:30:00Z',
  },
  {
    why: 'Lord Howe fall-back: cron 01:45 for 30m fires at both 01:45s, which touch and merge',
    window: cron('45 1 * * 0', '30m', LH),
    open: [
      ['2026-04-04T14:44:00Z', false],
      ['2026-04-04T14:45:00Z', true],
      ['2026-04-04T15:15:00Z', true],
      ['2026-04-04T15:45:00Z', false],
    ],
    from: '2026-04-04T00:00:00Z',
    at: '2026-04-04T14:45:00Z',
    closes: '2026-04-04T15:45:00Z',
  },
  {
    why: 'Lord Howe spring-forward (30 min): 02:00-03:00 opens at 02:30 and lasts 30 real minutes',
    window: weekly('02:00', '03:00', LH),
    open: [
      ['2026-10-03T15:29:59Z', false],
      ['2026-10-03T15:30:00Z', true],
      ['2026-10-03T16:00:00Z', false],
    ],
    from: '2026-10-03T00:00:00Z',
    at: '2026-10-03T15:30:00Z',
    closes: '2026-10-03T16:00:00Z',
  },
  {
    why: 'Lord Howe spring-forward: 02:10-02:20 falls in the gap and waits a week',
    window: weekly('02:10', '02:20', LH),
    open: [['2026-10-03T15:30:00Z', false]],
    from: '2026-10-03T00:00:00Z',
    at: '2026-10-10T15:10:00Z',
    closes: '2026-10-10T15:20:00Z',
  },
  {
    why: 'Lord Howe spring-forward: cron 02:15 fires at 02:30 for the full hour',
    window: cron('15 2 * * 0', '1h', LH),
    open: [
      ['2026-10-03T15:29:00Z', false],
      ['2026-10-03T15:30:00Z', true],
      ['2026-10-03T16:29:00Z', true],
      ['2026-10-03T16:30:00Z', false],
    ],
    from: '2026-10-03T00:00:00Z',
    at: '2026-10-03T15:30:00Z',
    closes: '2026-10-03T16:30:00Z',
  },
];

const utc = (text: string) => DateTime.fromISO(text, { zone: 'utc' });
const show = (dt: DateTime | 'never' | undefined) =>
  dt === undefined || dt === 'never'
    ? String(dt)
    : dt.toUTC().toISO({ suppressMilliseconds: true });

describe('windows across DST transitions', () => {
  for (const c of cases) {
    describe(c.why, () => {
      const compiled = compileSchedule({ windows: [c.window] });
      assert.ok(compiled.ok);
      const schedule = compiled.schedule;
      for (const [when, open] of c.open) {
        it(`is ${open ? 'open' : 'closed'} at ${when}`, () => {
          assert.equal(isOpen(schedule, utc(when)), open);
        });
      }
      it(`opens at ${c.at} and closes at ${c.closes}`, () => {
        assert.equal(show(nextOpening(schedule, utc(c.from))), show(utc(c.at)));
        assert.equal(show(closesAt(schedule, utc(c.at))), show(utc(c.closes)));
      });
    });
  }

  it('does not depend on luxon guessing the offset of an ambiguous local time', () => {
    // The same instant given with either offset must get the same answer.
    const compiled = compileSchedule({ windows: [weekly('01:00', '01:30', NY)] });
    assert.ok(compiled.ok);
    const first = DateTime.fromISO('2026-11-01T01:15:00-04:00', { setZone: true });
    const second = DateTime.fromISO('2026-11-01T01:15:00-05:00', { setZone: true });
    assert.equal(isOpen(compiled.schedule, first), true);
    assert.equal(isOpen(compiled.schedule, second), true);
    // Start takes the first 01:00, end the last 01:30: one span over both passes.
    assert.equal(show(closesAt(compiled.schedule, first)), '2026-11-01T06:30:00Z');
  });
});
