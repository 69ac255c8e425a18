import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextCronTime, parseCronSchedule, type CronSchedule } from '../../src/cron-schedule.js';

const parse = (text: string): CronSchedule => {
  const parsed = parseCronSchedule(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
};
const next = (text: string, after: string, zone?: string) => {
  const t = nextCronTime(parse(text), Date.parse(after), zone);
  return t === undefined ? undefined : new Date(t).toISOString();
};

describe('CronJob schedules', () => {
  it('fires at the next matching minute, never at the minute it starts from', () => {
    assert.equal(next('* * * * *', '2026-11-25T05:00:00Z'), '2026-11-25T05:01:00.000Z');
    assert.equal(next('*/15 * * * *', '2026-11-25T05:00:30Z'), '2026-11-25T05:15:00.000Z');
    assert.equal(next('0 3 * * *', '2026-11-25T05:00:00Z'), '2026-11-26T03:00:00.000Z');
    assert.equal(next('30 2 1 jan,jul *', '2026-11-25T00:00:00Z'), '2027-01-01T02:30:00.000Z');
    assert.equal(next('@hourly', '2026-11-25T05:59:59Z'), '2026-11-25T06:00:00.000Z');
    assert.equal(next('0 0 29 2 *', '2026-03-01T00:00:00Z'), '2028-02-29T00:00:00.000Z');
  });

  it('day of month and day of week: either, when both are restricted', () => {
    // 2026-11-25 is a Wednesday; the 1st of December a Tuesday.
    assert.equal(next('0 9 1 * mon', '2026-11-25T10:00:00Z'), '2026-11-30T09:00:00.000Z');
    assert.equal(next('0 9 * * tue', '2026-11-25T10:00:00Z'), '2026-12-01T09:00:00.000Z');
    assert.equal(next('0 9 1-7 * *', '2026-11-25T10:00:00Z'), '2026-12-01T09:00:00.000Z');
  });

  it("reads the time zone's wall clock, across a DST change", () => {
    assert.equal(
      next('0 3 * * *', '2026-11-25T05:00:00Z', 'Europe/Berlin'),
      '2026-11-26T02:00:00.000Z',
    );
    // New York springs forward on 2026-03-08: midnight is still 05:00 UTC that day.
    assert.equal(
      next('0 0 * * *', '2026-03-07T06:00:00Z', 'America/New_York'),
      '2026-03-08T05:00:00.000Z',
    );
    assert.equal(
      next('0 0 * * *', '2026-03-08T06:00:00Z', 'America/New_York'),
      '2026-03-09T04:00:00.000Z',
    );
  });

  it('names what it cannot parse, in the parser words the apiserver quotes', () => {
    assert.deepEqual(parseCronSchedule('every night'), {
      error: 'expected exactly 5 fields, found 2: [every night]',
    });
    assert.deepEqual(parseCronSchedule('61 * * * *'), {
      error: 'end of range (61) above maximum (59): 61',
    });
    assert.match(
      String((parseCronSchedule('* * * * funday') as { error: string }).error),
      /funday/,
    );
  });
});
