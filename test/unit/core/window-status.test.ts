import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { windowStatusLine } from '../../../src/core/window-status.js';
import { compileSchedule, type Schedule, type ScheduleSpec } from '../../../src/core/windows.js';

function schedule(spec: ScheduleSpec): Schedule {
  const result = compileSchedule(spec);
  assert.ok(result.ok, result.ok ? '' : JSON.stringify(result.errors));
  return result.schedule;
}

const BERLIN = 'Europe/Berlin';
const nights = {
  windows: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '02:00', end: '06:00', timezone: BERLIN },
  ],
};

describe('windowStatusLine: open until when, closed until when, or frozen and why', () => {
  // 2026-11-23 is a Monday; Berlin is UTC+1 in November.
  const cases: [string, ScheduleSpec, string, string][] = [
    [
      'inside a weekday night window',
      nights,
      '2026-11-23T02:00:00Z',
      'open now, closes Mon 2026-11-23 06:00 Europe/Berlin (in 3h)',
    ],
    [
      'after it closed: the next night',
      nights,
      '2026-11-23T06:30:00Z',
      'closed now; next opens Tue 2026-11-24 02:00 Europe/Berlin (in 18h30m)',
    ],
    [
      'on Friday morning: Monday, over the weekend',
      nights,
      '2026-11-27T05:00:00Z',
      'closed now; next opens Mon 2026-11-30 02:00 Europe/Berlin (in 2d20h)',
    ],
    [
      'no windows at all',
      {},
      '2026-11-23T12:00:00Z',
      'open now: no windows are configured, so always open',
    ],
    [
      'no windows, a freeze ahead',
      { freezes: [{ from: '2026-12-24', to: '2026-12-26', timezone: BERLIN, reason: 'holidays' }] },
      '2026-12-23T22:00:00Z',
      'open now, closes Thu 2026-12-24 00:00 Europe/Berlin (in 1h) (a freeze starts)',
    ],
    [
      'in a freeze: its reason, when it lifts, when the next window opens',
      {
        ...nights,
        freezes: [{ from: '2026-12-24', to: '2026-12-26', timezone: BERLIN, reason: 'holidays' }],
      },
      '2026-12-24T12:00:00Z',
      'frozen: holidays (until Sun 2026-12-27 00:00 Europe/Berlin (in 2d11h)); next opens Mon 2026-12-28 02:00 Europe/Berlin (in 3d13h)',
    ],
    [
      'a freeze longer than the horizon: said, not a date years away',
      {
        ...nights,
        freezes: [{ from: '2026-01-01', to: '2099-12-31', timezone: BERLIN }],
      },
      '2026-11-23T02:00:00Z',
      'frozen (until Fri 2100-01-01 00:00 Europe/Berlin (in 26701d21h)); no opening in the next 10 years: check the windows and freezes',
    ],
  ];
  for (const [name, spec, now, expected] of cases) {
    it(name, () => {
      assert.equal(windowStatusLine(schedule(spec), new Date(now), BERLIN), expected);
    });
  }

  it('speaks in the zone it is given', () => {
    const line = windowStatusLine(
      schedule(nights),
      new Date('2026-11-23T02:00:00Z'),
      'America/New_York',
    );
    assert.equal(line, 'open now, closes Mon 2026-11-23 00:00 America/New_York (in 3h)');
  });
});
