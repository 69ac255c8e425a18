import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';
import {
  closesAt,
  compileSchedule,
  isOpen,
  nextOpening,
  type FreezeSpec,
  type Schedule,
} from '../../../src/core/windows.js';

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FROM = Date.UTC(2026, 0, 1);
const TO = Date.UTC(2027, 11, 31);
// Instants next to the 2026 transitions of the zones above, where bugs live.
const TRANSITIONS = [
  '2026-03-29T01:00:00Z',
  '2026-10-25T01:00:00Z',
  '2026-03-08T07:00:00Z',
  '2026-11-01T06:00:00Z',
  '2026-04-04T15:00:00Z',
  '2026-10-03T15:30:00Z',
].map((s) => Date.parse(s));

const clock = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

const weeklyArb = fc
  .record({
    days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
    start: fc.integer({ min: 0, max: 95 }),
    end: fc.integer({ min: 0, max: 95 }),
    zone: fc.constantFrom(...ZONES),
  })
  .filter((w) => w.start !== w.end)
  .map((w) => ({
    days: w.days.map((d) => DAY_NAMES[d] ?? 'sun'),
    start: clock(w.start * 15),
    end: clock(w.end * 15),
    timezone: w.zone,
  }));

const cronArb = fc
  .record({
    minute: fc.constantFrom(0, 15, 30, 45),
    hour: fc.integer({ min: 0, max: 23 }),
    dow: fc.constantFrom('*', '0', '6', '1-5', '6#1', '0#2'),
    minutes: fc.integer({ min: 15, max: 600 }),
    zone: fc.constantFrom(...ZONES),
  })
  .map((c) => ({
    cron: `${c.minute} ${c.hour} * * ${c.dow}`,
    duration: `${c.minutes}m`,
    timezone: c.zone,
  }));

const freezeArb = fc
  .record({
    start: fc.integer({ min: FROM, max: TO }),
    hours: fc.integer({ min: 1, max: 480 }),
  })
  .map((f): FreezeSpec => ({
    from: new Date(f.start).toISOString(),
    to: new Date(f.start + f.hours * 3_600_000).toISOString(),
    reason: 'property',
  }));

const scheduleArb = fc
  .record({
    windows: fc.array(fc.oneof(weeklyArb, cronArb), { minLength: 0, maxLength: 3 }),
    freezes: fc.array(freezeArb, { maxLength: 2 }),
  })
  .map((spec) => {
    const compiled = compileSchedule(spec);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    return compiled.schedule;
  });

const instantArb = fc.oneof(
  fc.integer({ min: FROM, max: TO }),
  fc
    .tuple(fc.constantFrom(...TRANSITIONS), fc.integer({ min: -26 * 3600, max: 26 * 3600 }))
    .map(([t, s]) => t + s * 1000),
);

const dt = (ms: number) => DateTime.fromMillis(ms, { zone: 'utc' });

function checkAt(schedule: Schedule, t: number, between: number): void {
  const now = dt(t);
  const next = nextOpening(schedule, now);
  const closes = closesAt(schedule, now);
  if (isOpen(schedule, now)) {
    assert.equal(next?.toMillis(), t, 'open: nextOpening is now');
    assert.ok(closes !== undefined, 'open: closesAt is defined');
    if (closes !== 'never') {
      const end = closes.toMillis();
      assert.ok(end > t, 'closesAt is after now');
      assert.equal(isOpen(schedule, dt(end - 1)), true, 'open until just before closesAt');
      assert.equal(isOpen(schedule, dt(end)), false, 'closed at closesAt');
      assert.equal(isOpen(schedule, dt(t + between * (end - t))), true, 'open in between');
    }
  } else {
    assert.equal(closes, undefined, 'closed: closesAt is undefined');
    if (next !== undefined) {
      const at = next.toMillis();
      assert.ok(at > t, 'nextOpening is after now');
      assert.equal(isOpen(schedule, next), true, 'open at nextOpening');
      assert.equal(isOpen(schedule, dt(at - 1)), false, 'closed just before nextOpening');
      assert.equal(isOpen(schedule, dt(t + between * (at - t))), false, 'closed in between');
    }
  }
}

describe('schedule properties (fast-check)', () => {
  it('open instants close later; closed instants open later and stay closed until then', () => {
    fc.assert(
      fc.property(
        scheduleArb,
        instantArb,
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (s, t, f) => checkAt(s, t, f),
      ),
      { numRuns: 150 },
    );
  });

  it('weekly windows agree with the wall clock away from DST changes', () => {
    fc.assert(
      fc.property(weeklyArb, fc.integer({ min: FROM, max: TO }), (w, t) => {
        const zone = IANAZone.create(w.timezone);
        const offsets = new Set([-2, -1, 0, 1, 2].map((d) => zone.offset(t + d * 86_400_000)));
        fc.pre(offsets.size === 1);
        const compiled = compileSchedule({ windows: [w] });
        assert.ok(compiled.ok);
        const local = DateTime.fromMillis(t, { zone: w.timezone });
        const weekday = local.weekday % 7;
        const tod = local.hour * 60 + local.minute;
        const [sh = 0, sm = 0] = w.start.split(':').map(Number);
        const [eh = 0, em = 0] = w.end.split(':').map(Number);
        const start = sh * 60 + sm;
        const end = eh * 60 + em;
        const has = (d: number) => w.days.includes(DAY_NAMES[d] ?? '');
        const expected =
          start < end
            ? has(weekday) && tod >= start && tod < end
            : (has(weekday) && tod >= start) || (has((weekday + 6) % 7) && tod < end);
        assert.equal(isOpen(compiled.schedule, dt(t)), expected);
      }),
      { numRuns: 300 },
    );
  });
});
