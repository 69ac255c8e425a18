import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  cronMatchesDay,
  cronTimesOfDay,
  parseCron,
  type CronSchedule,
} from '../../../src/core/cron.js';

function cron(text: string): CronSchedule {
  const parsed = parseCron(text);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.message);
  return parsed.value;
}
const sorted = (set: ReadonlySet<number>) => [...set].sort((a, b) => a - b);

describe('parseCron fields', () => {
  const cases = [
    { text: '0 2 * * 6', field: 'daysOfWeek', want: [6] },
    { text: '*/15 * * * *', field: 'minutes', want: [0, 15, 30, 45] },
    { text: '5/20 * * * *', field: 'minutes', want: [5, 25, 45] },
    { text: '0 8-18/4 * * *', field: 'hours', want: [8, 12, 16] },
    { text: '0 1,13 * * *', field: 'hours', want: [1, 13] },
    { text: '0 2 1,15 * *', field: 'daysOfMonth', want: [1, 15] },
    { text: '0 2 * jan-mar,Dec *', field: 'months', want: [1, 2, 3, 12] },
    { text: '0 2 * * MON-fri', field: 'daysOfWeek', want: [1, 2, 3, 4, 5] },
    { text: '0 2 * * 7', field: 'daysOfWeek', want: [0] },
    { text: '0 2 * * 5-7', field: 'daysOfWeek', want: [0, 5, 6] },
    { text: '0 2 ? * sat,sun', field: 'daysOfWeek', want: [0, 6] },
    { text: '@daily', field: 'hours', want: [0] },
    { text: '@weekly', field: 'daysOfWeek', want: [0] },
    { text: '@HOURLY', field: 'minutes', want: [0] },
  ] as const;
  for (const c of cases) {
    it(`${c.text} → ${c.field} ${c.want.join(',')}`, () => {
      assert.deepEqual(sorted(cron(c.text)[c.field]), c.want);
    });
  }

  it('reads 6#1 as the first Saturday', () => {
    const parsed = cron('0 2 * * 6#1');
    assert.deepEqual(parsed.nthWeekdays, [{ weekday: 6, nth: 1 }]);
    assert.equal(parsed.dowRestricted, true);
    assert.deepEqual(cron('0 2 * * sun#2').nthWeekdays, [{ weekday: 0, nth: 2 }]);
  });

  it('marks a field restricted unless it starts with * or ?', () => {
    assert.equal(cron('0 2 */2 * 1').domRestricted, false);
    assert.equal(cron('0 2 ? * 1').domRestricted, false);
    assert.equal(cron('0 2 1 * *').domRestricted, true);
    assert.equal(cron('0 2 1 * *').dowRestricted, false);
  });
});

describe('parseCron rejects with a message that names the problem', () => {
  const cases = [
    { text: '0 2 * *', why: /4 fields.*minute hour day-of-month month day-of-week/ },
    { text: '0 0 2 * * 6', why: /6 fields \(a seconds or year field is not supported\)/ },
    { text: '60 * * * *', why: /minute "60" is out of range: allowed 0-59/ },
    { text: '0 24 * * *', why: /hour "24" is out of range/ },
    { text: '0 2 0 * *', why: /day-of-month "0" is out of range: allowed 1-31/ },
    { text: '0 2 * 13 *', why: /month "13" is out of range: allowed 1-12 or jan…dec/ },
    { text: '0 2 * * 8', why: /day-of-week "8" is out of range: allowed 0-7 or sun…sat/ },
    { text: '0 2 * * funday', why: /day-of-week "funday" is out of range/ },
    { text: '*/0 * * * *', why: /step must be a whole number of at least 1/ },
    { text: '0 2 * * sat-sun', why: /runs backwards: write it as 6-7 \(7 is Sunday\)/ },
    { text: '0 22-2 * * *', why: /runs backwards: write it as 22-23,0-2/ },
    { text: '0 2 L * *', why: /L and W are not supported.*6#1/ },
    { text: '0 2 * * 6#6', why: /weekday#n with n 1-5/ },
    { text: '0 2 * * 6#1-2', why: /weekday#n with n 1-5/ },
    { text: '@reboot', why: /@reboot.*not supported/ },
    { text: '', why: /1 fields/ },
    { text: '*-5 * * * *', why: /\* cannot start a range/ },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.text), () => {
      const parsed = parseCron(c.text);
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.message, c.why);
    });
  }
});

describe('cronMatchesDay', () => {
  // 2026-08: Sat 1, Sat 8, Mon 3, Tue 4, Thu 13, Sat 29, Mon 31.
  const cases = [
    { text: '0 2 * * 6', date: { month: 8, day: 1 }, weekday: 6, match: true },
    { text: '0 2 * * 6', date: { month: 8, day: 3 }, weekday: 1, match: false },
    { text: '0 2 * * 6#1', date: { month: 8, day: 1 }, weekday: 6, match: true },
    { text: '0 2 * * 6#1', date: { month: 8, day: 8 }, weekday: 6, match: false },
    { text: '0 2 * * 6#5', date: { month: 8, day: 29 }, weekday: 6, match: true },
    { text: '0 2 * * 1#5', date: { month: 8, day: 31 }, weekday: 1, match: true },
    // Standard cron OR semantics when both day fields are restricted.
    { text: '0 2 1-7 * 6', date: { month: 8, day: 29 }, weekday: 6, match: true },
    { text: '0 2 1-7 * 6', date: { month: 8, day: 4 }, weekday: 2, match: true },
    { text: '0 2 1-7 * 6', date: { month: 8, day: 13 }, weekday: 4, match: false },
    // A `*`-led day field does not count as restricted.
    { text: '0 2 */2 * 1', date: { month: 8, day: 13 }, weekday: 4, match: false },
    { text: '0 2 */2 * 1', date: { month: 8, day: 3 }, weekday: 1, match: true },
    { text: '0 2 13 * *', date: { month: 8, day: 13 }, weekday: 4, match: true },
    { text: '0 2 * dec *', date: { month: 8, day: 13 }, weekday: 4, match: false },
    { text: '0 2 * * *', date: { month: 8, day: 13 }, weekday: 4, match: true },
  ];
  for (const c of cases) {
    it(`${c.text} ${c.match ? 'matches' : 'skips'} 2026-${c.date.month}-${c.date.day}`, () => {
      assert.equal(cronMatchesDay(cron(c.text), c.date, c.weekday), c.match);
    });
  }
});

describe('cronTimesOfDay', () => {
  it('lists every firing time of a day in order', () => {
    assert.deepEqual(cronTimesOfDay(cron('30 1,3 * * *')), [5400, 12600]);
    assert.equal(cronTimesOfDay(cron('* * * * *')).length, 1440);
    assert.deepEqual(cronTimesOfDay(cron('0,30 22 * * *')), [79200, 81000]);
  });
});
