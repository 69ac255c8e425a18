/**
 * kured-compatible weekly windows: on each listed day, open from `start` to `end` local time. An end
 * before the start wraps past midnight and the occurrence belongs to its START day (`sat 22:00–06:00`
 * runs Saturday night into Sunday morning, even when Sunday is not listed). The start is inclusive,
 * the end exclusive.
 *
 * DST, decided here: a window is the real span between its local start and end.
 * - A start or end inside a spring-forward gap happens when the clock jumps (02:00–04:00 Berlin on
 *   2026-03-29 opens at 03:00 CEST and lasts one real hour; a window wholly inside the gap does not
 *   occur that day).
 * - On fall-back days the start takes the first occurrence of its local time and the end the last, so
 *   the window lasts the whole wall-clock span: 01:00–03:00 New York on 2026-11-01 is three real
 *   hours, open at both 01:30s.
 */
import { formatClock, parseClock, parseWeekday, DAY_ABBREVIATIONS } from './window-clock.js';
import { dayAt, dayResolver, loadZone, weekdayOf, zoneProblem } from './window-zone.js';
import type { Span } from './window-spans.js';
import {
  issue,
  type CompiledWindow,
  type ScheduleIssue,
  type WeeklyWindowSpec,
} from './window-types.js';

export function compileWeekly(
  spec: WeeklyWindowSpec,
  at: (string | number)[],
): { window?: CompiledWindow; issues: ScheduleIssue[] } {
  const issues: ScheduleIssue[] = [];
  const days = new Set<number>();
  if (!Array.isArray(spec.days) || spec.days.length === 0) {
    issues.push(
      issue([...at, 'days'], 'days is empty: list the weekdays, e.g. [sat, sun] or [0, 6]'),
    );
  } else {
    spec.days.forEach((value, i) => {
      // kured takes a comma-separated flag; accept `mon,tue` inside one entry too.
      for (const part of String(value).split(',')) {
        const day = parseWeekday(part);
        if (day.ok) days.add(day.value);
        else issues.push(issue([...at, 'days', i], day.message));
      }
    });
  }
  const start = parseClock(String(spec.start ?? ''));
  if (!start.ok) issues.push(issue([...at, 'start'], start.message));
  const end = parseClock(String(spec.end ?? ''), true);
  if (!end.ok) issues.push(issue([...at, 'end'], end.message));
  const zoneIssue = zoneProblem(String(spec.timezone ?? ''));
  if (zoneIssue) issues.push(issue([...at, 'timezone'], zoneIssue));
  if (start.ok && end.ok && start.value === end.value) {
    issues.push(
      issue(
        [...at, 'end'],
        `end ${JSON.stringify(spec.end)} equals start: the window would be empty; for a whole day use start 00:00 and end 23:59:59`,
      ),
    );
  }
  if (issues.length > 0 || !start.ok || !end.ok) return { issues };

  const zone = loadZone(spec.timezone);
  const startSec = start.value;
  const endSec = end.value;
  const wraps = endSec < startSec;
  const dayList = [...days].sort((a, b) => a - b);
  const description =
    `${dayList.map((d) => DAY_ABBREVIATIONS[d]).join(',')} ` +
    `${formatClock(startSec)}–${formatClock(endSec)} ${zone.name}${wraps ? ' (ends the next day)' : ''}`;

  const occurrences = (from: number, to: number): Span[] => {
    const spans: Span[] = [];
    // One day back for wrapping windows, one more for offsets that shift the local date.
    for (let day = dayAt(zone, from) - 2; day <= dayAt(zone, to) + 1; day++) {
      if (!days.has(weekdayOf(day))) continue;
      const startAt = dayResolver(zone, day)(startSec)[0];
      const endAt = (wraps ? dayResolver(zone, day + 1) : dayResolver(zone, day))(endSec).at(-1);
      if (startAt === undefined || endAt === undefined) continue;
      if (endAt > startAt && endAt > from && startAt < to)
        spans.push({ start: startAt, end: endAt });
    }
    return spans;
  };
  return { window: { description, occurrences }, issues };
}
