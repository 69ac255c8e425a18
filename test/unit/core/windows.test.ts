import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import {
  activeFreeze,
  closesAt,
  compileSchedule,
  describeSchedule,
  isOpen,
  nextOpening,
  type Schedule,
  type ScheduleSpec,
} from '../../../src/core/windows.js';

function schedule(spec: ScheduleSpec): Schedule {
  const result = compileSchedule(spec);
  assert.ok(result.ok, result.ok ? '' : JSON.stringify(result.errors));
  return result.schedule;
}
const at = (iso: string) => DateTime.fromISO(iso, { setZone: true });
const iso = (dt: DateTime | 'never' | undefined) =>
  dt === undefined || dt === 'never' ? dt : dt.toUTC().toISO({ suppressMilliseconds: true });
const utc = (text: string) => at(text).toUTC().toISO({ suppressMilliseconds: true });

describe('weekly windows, kured timewindow_test cases', () => {
  const tests = [
    {
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      start: '9am',
      end: '5pm',
      tz: 'America/Los_Angeles',
      cases: [
        ['2019-04-04T00:49:00-07:00', false],
        ['2019-04-05T08:59:00-07:00', false],
        ['2019-04-05T09:01:00-07:00', true],
        ['2019-03-31T10:00:00-07:00', false],
        ['2019-04-04T12:00:00-07:00', true],
        ['2019-04-04T11:59:00Z', false],
      ],
    },
    {
      days: ['mon', 'we', 'fri'],
      start: '10:01',
      end: '11:30am',
      tz: 'America/Los_Angeles',
      cases: [
        ['2019-04-05T10:30:00-07:00', true],
        ['2019-04-06T10:30:00-07:00', false],
        ['2019-04-07T10:30:00-07:00', false],
        ['2019-04-08T10:30:00-07:00', true],
        ['2019-04-09T10:30:00-07:00', false],
        ['2019-04-10T10:30:00-07:00', true],
        ['2019-04-11T10:30:00-07:00', false],
      ],
    },
    {
      days: ['mo', 'tu', 'we', 'th', 'fr'],
      start: '00:00',
      end: '23:59:59',
      tz: 'UTC',
      cases: [
        ['2019-04-18T00:00:00Z', true],
        ['2019-04-18T23:59:00Z', true],
        ['2019-04-18T23:59:59.999Z', true],
        ['2019-04-20T12:00:00Z', false],
      ],
    },
    {
      days: ['Sat'],
      start: '22:00',
      end: '06:00',
      tz: 'Europe/Berlin',
      cases: [
        ['2026-08-08T21:59:59+02:00', false],
        ['2026-08-08T22:00:00+02:00', true],
        ['2026-08-09T03:00:00+02:00', true],
        ['2026-08-09T05:59:59+02:00', true],
        ['2026-08-09T06:00:00+02:00', false],
        ['2026-08-09T22:30:00+02:00', false],
        ['2026-08-07T23:00:00+02:00', false],
      ],
    },
    {
      days: [2, '4'],
      start: '02:00',
      end: '05:00',
      tz: 'Europe/Berlin',
      cases: [
        ['2026-03-31T01:59:00+02:00', false],
        ['2026-03-31T02:00:00+02:00', true],
        ['2026-03-31T05:00:00+02:00', false],
        ['2026-03-31T00:30:00Z', true],
        ['2026-04-01T03:00:00+02:00', false],
        ['2026-04-02T04:00:00+02:00', true],
      ],
    },
  ] as const;
  for (const t of tests) {
    const s = schedule({
      windows: [{ days: [...t.days], start: t.start, end: t.end, timezone: t.tz }],
    });
    for (const [when, open] of t.cases) {
      it(`${t.days.join(',')} ${t.start}-${t.end} ${t.tz} is ${open ? 'open' : 'closed'} at ${when}`, () => {
        assert.equal(isOpen(s, at(when)), open);
      });
    }
  }
});

describe('nextOpening and closesAt', () => {
  const nights = { days: ['sat'], start: '22:00', end: '06:00', timezone: 'Europe/Berlin' };
  const cases = [
    {
      why: 'closed: the next opening is the coming Saturday 22:00',
      spec: { windows: [nights] },
      now: '2026-08-05T12:00:00Z',
      next: '2026-08-08T20:00:00Z',
      closes: undefined,
    },
    {
      why: 'open: next opening is now, and a wrapped window closes Sunday 06:00',
      spec: { windows: [nights] },
      now: '2026-08-08T23:00:00Z',
      next: '2026-08-08T23:00:00Z',
      closes: '2026-08-09T04:00:00Z',
    },
    {
      why: 'overlapping windows merge into one open period',
      spec: {
        windows: [
          nights,
          { days: ['sun'], start: '05:00', end: '09:00', timezone: 'Europe/Berlin' },
        ],
      },
      now: '2026-08-08T23:00:00Z',
      next: '2026-08-08T23:00:00Z',
      closes: '2026-08-09T07:00:00Z',
    },
    {
      why: 'touching windows in different zones merge too',
      spec: {
        windows: [
          { days: ['sat'], start: '20:00', end: '22:00', timezone: 'UTC' },
          { days: ['sat', 'sun'], start: '00:00', end: '02:00', timezone: 'Europe/Berlin' },
        ],
      },
      now: '2026-08-08T21:00:00Z',
      next: '2026-08-08T21:00:00Z',
      closes: '2026-08-09T00:00:00Z',
    },
    {
      why: 'every day 00:00-23:59:59 never closes',
      spec: {
        windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: '0:00', end: '23:59:59', timezone: 'UTC' }],
      },
      now: '2026-08-05T12:00:00Z',
      next: '2026-08-05T12:00:00Z',
      closes: 'never',
    },
    {
      why: '...unless a freeze comes',
      spec: {
        windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: '0:00', end: '23:59:59', timezone: 'UTC' }],
        freezes: [{ from: '2027-12-20', to: '2028-01-02', reason: 'holidays' }],
      },
      now: '2026-08-05T12:00:00Z',
      next: '2026-08-05T12:00:00Z',
      closes: '2027-12-20T00:00:00Z',
    },
    {
      why: 'no windows: always open',
      spec: {},
      now: '2026-08-05T12:00:00Z',
      next: '2026-08-05T12:00:00Z',
      closes: 'never',
    },
    {
      why: 'no windows and a freeze: closes when the freeze starts',
      spec: { freezes: [{ from: '2026-12-24', to: '2026-12-26', timezone: 'Europe/Berlin' }] },
      now: '2026-08-05T12:00:00Z',
      next: '2026-08-05T12:00:00Z',
      closes: '2026-12-23T23:00:00Z',
    },
    {
      why: 'no windows, inside a freeze: opens when it lifts (date-only "to" is inclusive)',
      spec: { freezes: [{ from: '2026-12-24', to: '2026-12-26', timezone: 'Europe/Berlin' }] },
      now: '2026-12-25T12:00:00Z',
      next: '2026-12-26T23:00:00Z',
      closes: undefined,
    },
    {
      why: 'a freeze cuts an open window short',
      spec: {
        windows: [nights],
        freezes: [{ from: '2026-08-09T02:00', to: '2026-08-09T12:00', timezone: 'Europe/Berlin' }],
      },
      now: '2026-08-08T21:00:00Z',
      next: '2026-08-08T21:00:00Z',
      closes: '2026-08-09T00:00:00Z',
    },
    {
      why: 'a freeze ending inside a window opens it at the freeze end',
      spec: {
        windows: [nights],
        freezes: [{ from: '2026-08-08T00:00:00Z', to: '2026-08-08T23:30:00+02:00' }],
      },
      now: '2026-08-07T12:00:00Z',
      next: '2026-08-08T21:30:00Z',
      closes: undefined,
    },
    {
      why: 'a freeze covering a whole window skips to the following week',
      spec: { windows: [nights], freezes: [{ from: '2026-08-08', to: '2026-08-09' }] },
      now: '2026-08-07T12:00:00Z',
      next: '2026-08-15T20:00:00Z',
      closes: undefined,
    },
    {
      why: 'a permanent freeze: never opens',
      spec: { windows: [nights], freezes: [{ from: '2026-01-01', to: '2099-12-31' }] },
      now: '2026-08-07T12:00:00Z',
      next: undefined,
      closes: undefined,
    },
    {
      why: 'cron monthly: first Saturday 02:00 for 4h',
      spec: { windows: [{ cron: '0 2 * * 6#1', duration: '4h', timezone: 'Europe/Berlin' }] },
      now: '2026-08-02T00:00:00Z',
      next: '2026-09-05T00:00:00Z',
      closes: undefined,
    },
    {
      why: 'cron open: closes after its duration',
      spec: { windows: [{ cron: '0 2 * * 6#1', duration: '4h', timezone: 'Europe/Berlin' }] },
      now: '2026-09-05T01:00:00Z',
      next: '2026-09-05T01:00:00Z',
      closes: '2026-09-05T04:00:00Z',
    },
    {
      why: 'cron on 29 February waits for the leap year',
      spec: { windows: [{ cron: '0 0 29 2 *', duration: '1h', timezone: 'UTC' }] },
      now: '2028-03-01T00:00:00Z',
      next: '2032-02-29T00:00:00Z',
      closes: undefined,
    },
    {
      why: 'cron that can never fire (30 February)',
      spec: { windows: [{ cron: '0 0 30 2 *', duration: '1h', timezone: 'UTC' }] },
      now: '2026-03-01T00:00:00Z',
      next: undefined,
      closes: undefined,
    },
    {
      why: 'cron windows every 6h for 6h chain into one open period',
      spec: { windows: [{ cron: '0 */6 * * *', duration: '6h', timezone: 'UTC' }] },
      now: '2026-08-05T12:00:00Z',
      next: '2026-08-05T12:00:00Z',
      closes: 'never',
    },
  ];
  for (const c of cases) {
    it(c.why, () => {
      const s = schedule(c.spec);
      const now = at(c.now);
      assert.equal(isOpen(s, now), c.closes !== undefined);
      assert.equal(iso(nextOpening(s, now)), c.next === undefined ? undefined : utc(c.next));
      const closes = closesAt(s, now);
      const want = c.closes === undefined || c.closes === 'never' ? c.closes : utc(c.closes);
      assert.equal(iso(closes), want);
    });
  }

  it('answers in the zone of now', () => {
    const s = schedule({ windows: [nights] });
    const next = nextOpening(s, at('2026-08-05T12:00:00-04:00'));
    assert.equal(next?.toISO({ suppressMilliseconds: true }), '2026-08-08T16:00:00-04:00');
  });
});

describe('freezes', () => {
  const s = schedule({
    windows: [{ days: ['sat'], start: '00:00', end: '23:59:59', timezone: 'UTC' }],
    freezes: [
      { from: '2026-12-19', to: '2026-12-26', timezone: 'Europe/Berlin', reason: 'holidays' },
      { from: '2026-12-27', to: '2027-01-03', timezone: 'Europe/Berlin', reason: 'new year' },
    ],
  });
  it('win over an open window and carry their reason', () => {
    const now = at('2026-12-19T12:00:00Z');
    assert.equal(isOpen(s, now), false);
    const freeze = activeFreeze(s, now);
    assert.equal(freeze?.reason, 'holidays');
    assert.equal(iso(freeze?.to), utc('2026-12-27T00:00:00+01:00'));
    assert.equal(iso(freeze?.until), utc('2027-01-04T00:00:00+01:00'), 'merged with the next one');
    assert.match(freeze?.description ?? '', /holidays/);
  });
  it('has no active freeze outside them', () => {
    assert.equal(activeFreeze(s, at('2026-12-12T12:00:00Z')), undefined);
    assert.equal(isOpen(s, at('2026-12-12T12:00:00Z')), true);
  });
  it('reopens at the first window after the freezes', () => {
    assert.equal(iso(nextOpening(s, at('2026-12-20T00:00:00Z'))), utc('2027-01-09T00:00:00Z'));
  });
  const ends = [
    {
      spec: { from: '2026-05-01', to: '2026-05-01' },
      inside: '2026-05-01T23:59:59Z',
      after: '2026-05-02T00:00:00Z',
    },
    {
      spec: { from: '2026-05-01T08:00', to: '2026-05-01T17:00' },
      inside: '2026-05-01T16:59:59Z',
      after: '2026-05-01T17:00:00Z',
    },
    {
      spec: { from: '2026-05-01 08:00', to: '2026-05-01T17:00:00+02:00' },
      inside: '2026-05-01T14:59:59Z',
      after: '2026-05-01T15:00:00Z',
    },
    {
      spec: { from: '2026-05-01T08:00', to: '2026-05-01T17:00', timezone: 'America/New_York' },
      inside: '2026-05-01T20:59:59Z',
      after: '2026-05-01T21:00:00Z',
    },
  ];
  for (const c of ends) {
    it(`${c.spec.from} → ${c.spec.to} ${c.spec.timezone ?? 'UTC'} ends at ${c.after}`, () => {
      const f = schedule({ freezes: [c.spec] });
      assert.equal(isOpen(f, at(c.inside)), false);
      assert.equal(isOpen(f, at(c.after)), true);
    });
  }
});

describe('compileSchedule reports every problem with its path', () => {
  const cases = [
    {
      window: { days: [], start: '1:00', end: '2:00', timezone: 'UTC' },
      path: 'windows[0].days',
      message: /days is empty/,
    },
    {
      window: { days: ['mon', 'funday'], start: '1:00', end: '2:00', timezone: 'UTC' },
      path: 'windows[0].days[1]',
      message: /"funday" is not a weekday: use su\/sun\/sunday/,
    },
    {
      window: { days: [7], start: '1:00', end: '2:00', timezone: 'UTC' },
      path: 'windows[0].days[0]',
      message: /out of range: use 0-6 \(0 = sunday/,
    },
    {
      window: { days: ['mon'], start: '25:00', end: '2:00', timezone: 'UTC' },
      path: 'windows[0].start',
      message: /the hour must be 0-23/,
    },
    {
      window: { days: ['mon'], start: '13pm', end: '2:00', timezone: 'UTC' },
      path: 'windows[0].start',
      message: /hour must be 1-12/,
    },
    {
      window: { days: ['mon'], start: '1:00', end: 'noon', timezone: 'UTC' },
      path: 'windows[0].end',
      message: /"noon" is not a time of day: use 15:04, 15:04:05, 3pm or 3:04pm/,
    },
    {
      window: { days: ['mon'], start: '24:00', end: '2:00', timezone: 'UTC' },
      path: 'windows[0].start',
      message: /24:00 is only allowed as an end/,
    },
    {
      window: { days: ['mon'], start: '2:00', end: '02:00', timezone: 'UTC' },
      path: 'windows[0].end',
      message: /equals start: the window would be empty/,
    },
    {
      window: { days: ['mon'], start: '1:00', end: '2:00', timezone: 'Local' },
      path: 'windows[0].timezone',
      message: /"Local" depends on the machine.*Europe\/Berlin/,
    },
    {
      window: { days: ['mon'], start: '1:00', end: '2:00', timezone: 'CEST' },
      path: 'windows[0].timezone',
      message: /"CEST" is not an IANA time zone/,
    },
    {
      window: { cron: '0 2 * * 8', duration: '4h', timezone: 'UTC' },
      path: 'windows[0].cron',
      message: /day-of-week "8" is out of range/,
    },
    {
      window: { cron: '0 2 * * 6', duration: 'four hours', timezone: 'UTC' },
      path: 'windows[0].duration',
      message: /"four hours" must be a positive length up to 31d, e.g. 4h/,
    },
    {
      window: { cron: '0 2 * * 6', duration: '32d', timezone: 'UTC' },
      path: 'windows[0].duration',
      message: /up to 31d/,
    },
    {
      window: { cron: '0 2 * * 6', duration: '0s', timezone: 'UTC' },
      path: 'windows[0].duration',
      message: /positive/,
    },
    {
      window: { cron: '0 2 * * 6', duration: '4h', days: ['mon'], timezone: 'UTC' },
      path: 'windows[0]',
      message: /either weekly .* or cron/,
    },
    {
      window: { timezone: 'UTC' },
      path: 'windows[0]',
      message: /needs days, start, end and timezone, or cron/,
    },
  ];
  for (const c of cases) {
    it(`${c.path}: ${String(c.message)}`, () => {
      const result = compileSchedule({ windows: [c.window as never] });
      assert.equal(result.ok, false);
      if (result.ok) return;
      const found = result.errors.find((e) => e.path === c.path);
      assert.ok(found, `no error at ${c.path}: ${JSON.stringify(result.errors)}`);
      assert.match(found.message, c.message);
    });
  }

  const freezeCases = [
    {
      freeze: { from: '2026-02-30', to: '2026-03-02' },
      path: 'freezes[0].from',
      message: /"2026-02-30" is not a calendar date/,
    },
    {
      freeze: { from: '2026-03-01', to: 'next week' },
      path: 'freezes[0].to',
      message: /"next week" is not a date: use a date like 2026-12-24/,
    },
    {
      freeze: { from: '2026-03-02', to: '2026-03-01' },
      path: 'freezes[0].to',
      message: /ends \(2026-03-01\) before it starts/,
    },
    {
      freeze: { from: '2026-03-01T25:00', to: '2026-03-02' },
      path: 'freezes[0].from',
      message: /not a valid date and time/,
    },
    {
      freeze: { from: '2026-03-01', to: '2026-03-02', timezone: 'Local' },
      path: 'freezes[0].timezone',
      message: /"Local"/,
    },
  ];
  for (const c of freezeCases) {
    it(`${c.path}: ${String(c.message)}`, () => {
      const result = compileSchedule({ freezes: [c.freeze] });
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.deepEqual(
        result.errors.map((e) => e.path),
        [c.path],
      );
      assert.match(result.errors[0]?.message ?? '', c.message);
    });
  }

  it('lists all problems at once, with path segments for the config schema', () => {
    const result = compileSchedule({
      windows: [
        { days: ['mon'], start: '9am', end: '5pm', timezone: 'UTC' },
        { days: ['xx'], start: '99', end: '5pm', timezone: 'Nowhere/Else' },
      ],
      freezes: [{ from: 'soon', to: '2026-01-01' }],
    });
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(
      result.errors.map((e) => e.path),
      ['windows[1].days[0]', 'windows[1].start', 'windows[1].timezone', 'freezes[0].from'],
    );
    assert.deepEqual(result.errors[0]?.segments, ['windows', 1, 'days', 0]);
  });

  it('accepts kured vocabulary: day names in any case, comma lists, every time format', () => {
    const result = compileSchedule({
      windows: [
        {
          days: ['Mon', 'TUESDAY', 'we,th', 5, '6', 'su'],
          start: '3pm',
          end: '15:04:05',
          timezone: 'UTC',
        },
        { days: ['sat'], start: '03:04pm', end: '15', timezone: 'europe/berlin' },
        { days: ['sat'], start: '12am', end: '24:00', timezone: 'Etc/UTC' },
      ],
    });
    assert.ok(result.ok, JSON.stringify(!result.ok && result.errors));
    assert.deepEqual(describeSchedule(result.schedule), [
      'sun,mon,tue,wed,thu,fri,sat 15:00–15:04:05 UTC',
      'sat 15:04–15:00 Europe/Berlin (ends the next day)',
      'sat 00:00–24:00 UTC',
    ]);
  });
});

describe('describeSchedule', () => {
  it('says when no windows means always open, and lists cron windows and freezes', () => {
    assert.deepEqual(describeSchedule(schedule({})), ['always open (no windows configured)']);
    assert.deepEqual(
      describeSchedule(
        schedule({
          windows: [{ cron: '0 2 * * 6#1', duration: '1h30m', timezone: 'America/New_York' }],
          freezes: [{ from: '2026-12-24', to: '2026-12-26', reason: 'holidays' }],
        }),
      ),
      [
        'cron "0 2 * * 6#1" for 1h30m America/New_York',
        'freeze 2026-12-24 → 2026-12-26 UTC: holidays',
      ],
    );
  });
});
