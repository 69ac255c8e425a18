/**
 * The cron dialect of cron windows, as croner reads it (ADR 0039): which wall-clock minutes fire, and
 * which patterns are refused with a message naming the field. DST is windows-dst.test.ts's.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCronPattern, wallFirings } from '../../../src/core/window-cron.js';

/** Every firing in a UTC month, as `DD HH:MM` (the wall clock, encoded as UTC). */
function firings(text: string, month = '2026-08'): string[] {
  const parsed = parseCronPattern(text);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.message);
  const from = Date.parse(`${month}-01T00:00:00Z`);
  const to = new Date(from);
  to.setUTCMonth(to.getUTCMonth() + 1);
  return wallFirings(parsed.value, from, to.getTime()).map((ms) =>
    new Date(ms).toISOString().slice(8, 16).replace('T', ' '),
  );
}
const days = (text: string, month?: string) => [
  ...new Set(firings(text, month).map((f) => Number(f.slice(0, 2)))),
];
const timesOfFirstDay = (text: string) =>
  firings(text)
    .filter((f) => f.startsWith('01 '))
    .map((f) => f.slice(3));

// 2026-08: Saturdays 1, 8, 15, 22, 29; Mondays 3, 10, 17, 24, 31; 31 days.
describe('cron fields, read by croner', () => {
  const times = [
    { text: '*/15 2 * * *', want: ['02:00', '02:15', '02:30', '02:45'] },
    { text: '5/20 2 * * *', want: ['02:05', '02:25', '02:45'], why: '5/20 is 5-59/20 (Vixie)' },
    { text: '0 8-18/4 * * *', want: ['08:00', '12:00', '16:00'] },
    { text: '0 1,13 * * *', want: ['01:00', '13:00'] },
    { text: '30 1,3 * * *', want: ['01:30', '03:30'] },
    { text: '@daily', want: ['00:00'] },
    {
      text: '@HOURLY',
      want: Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`),
    },
    {
      text: '? 2 * * *',
      want: Array.from({ length: 60 }, (_, m) => `02:${String(m).padStart(2, '0')}`),
      why: '? is * in every field (croner)',
    },
  ];
  for (const c of times) {
    it(`${c.text} fires at ${c.want.length > 4 ? `${c.want.length} times` : c.want.join(', ')} of a day${c.why ? ` (${c.why})` : ''}`, () => {
      assert.deepEqual(timesOfFirstDay(c.text), c.want);
    });
  }
  it('* * * * * fires every minute of the day', () => {
    assert.equal(timesOfFirstDay('* * * * *').length, 1440);
  });

  const dayCases = [
    { text: '0 2 * * 6', want: [1, 8, 15, 22, 29] },
    { text: '0 2 * * 7', want: [2, 9, 16, 23, 30], why: '7 is Sunday' },
    { text: '0 2 * * 5-7', want: [1, 2, 7, 8, 9, 14, 15, 16, 21, 22, 23, 28, 29, 30] },
    {
      text: '0 2 * * MON-fri',
      want: [3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 17, 18, 19, 20, 21, 24, 25, 26, 27, 28, 31],
    },
    { text: '0 2 ? * sat,sun', want: [1, 2, 8, 9, 15, 16, 22, 23, 29, 30] },
    {
      text: '0 2 * * sat-sun',
      want: [1, 2, 8, 9, 15, 16, 22, 23, 29, 30],
      why: 'sun closes a range as 7 (croner)',
    },
    { text: '0 2 1,15 * *', want: [1, 15] },
    { text: '0 2 * * 6#1', want: [1], why: 'first Saturday' },
    { text: '0 2 * * sun#2', want: [9], why: 'second Sunday' },
    { text: '0 2 * * 6#5', want: [29] },
    { text: '0 2 * * 1#5', want: [31] },
    { text: '0 2 * * 6L', want: [29], why: 'last Saturday (croner)' },
    { text: '0 2 L * *', want: [31], why: 'last day of the month (croner)' },
    {
      text: '0 2 1-7 * 6',
      want: [1, 2, 3, 4, 5, 6, 7, 8, 15, 22, 29],
      why: 'both day fields restricted: OR',
    },
    { text: '0 2 13 * *', want: [13] },
    { text: '0 2 * dec *', want: [] },
    { text: '0 2 * jan-mar,Aug *', want: Array.from({ length: 31 }, (_, i) => i + 1) },
    // Vixie cron counted any day field starting with `*` as unrestricted, so this was "Mondays" only;
    // croner counts only a bare `*` (or `?`), so a stepped day-of-month ORs with the weekday.
    {
      text: '0 2 */2 * 1',
      want: [1, 3, 5, 7, 9, 10, 11, 13, 15, 17, 19, 21, 23, 24, 25, 27, 29, 31],
      why: '*/2 is restricted: odd days OR Mondays (croner; Vixie: Mondays)',
    },
  ];
  for (const c of dayCases) {
    it(`${c.text} fires on August ${c.want.length > 8 ? `${c.want.length} days` : c.want.join(', ') || 'no day'}${c.why ? ` (${c.why})` : ''}`, () => {
      assert.deepEqual(days(c.text), c.want);
    });
  }
  it('0 0 29 2 * fires on 29 February of a leap year only', () => {
    assert.deepEqual(days('0 0 29 2 *', '2027-02'), []);
    assert.deepEqual(days('0 0 29 2 *', '2028-02'), [29]);
  });
});

describe('cron patterns refused with a message that names the problem', () => {
  const cases = [
    {
      text: '0 2 * *',
      why: /4 fields: use five fields: minute hour day-of-month month day-of-week/,
    },
    { text: '0 0 2 * * 6', why: /6 fields \(a seconds or year field is not supported\)/ },
    { text: '0 0 2 * * 6 2027', why: /7 fields \(a seconds or year field is not supported\)/ },
    { text: '60 * * * *', why: /minute "60" is out of range or not a cron value: allowed 0-59/ },
    { text: '0 24 * * *', why: /hour "24" is out of range/ },
    { text: '0 2 0 * *', why: /day-of-month "0" is out of range.*allowed 1-31/ },
    { text: '0 2 * 13 *', why: /month "13" is out of range.*allowed 1-12 or jan-dec/ },
    { text: '0 2 * * 8', why: /day-of-week "8" is out of range.*allowed 0-7 or sun-sat/ },
    { text: '0 2 * * funday', why: /day-of-week "funday" is out of range/ },
    { text: '*/0 * * * *', why: /minute "\*\/0"/ },
    { text: '0 22-2 * * *', why: /hour "22-2" is out of range/ },
    { text: '0 2 * * 6#6', why: /day-of-week "6#6".*n#k \(6#1: first Saturday\)/ },
    { text: '0 2 * * 6#1-2', why: /day-of-week "6#1-2"/ },
    { text: '@reboot', why: /@reboot is not supported/ },
    { text: '', why: /0 fields/ },
    { text: '*-5 * * * *', why: /minute "\*-5"/ },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.text), () => {
      const parsed = parseCronPattern(c.text);
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.message, c.why);
    });
  }
});
