/**
 * Cron-start-plus-duration windows (`cron: "0 2 * * 6#1"`, `duration: 4h`, `timezone: Europe/Berlin`):
 * each firing of the cron, read on the zone's wall clock, opens the window for `duration` of real
 * (elapsed) time.
 *
 * DST, decided here, so that no window is silently lost:
 * - a firing time inside a spring-forward gap fires when the clock jumps (`30 2 * * 0` in New York on
 *   2026-03-08 opens at 03:00 EDT), unlike node-cron, which skips it;
 * - a firing time inside a fall-back overlap fires at both instants the wall clock shows it, and the
 *   two openings merge (`30 1 * * 0`, 1h, New York 2026-11-01: 01:30 EDT to 02:30 EST). Sub-hourly
 *   patterns therefore keep covering the repeated hour.
 */
import { cronMatchesDay, cronTimesOfDay, parseCron } from './cron.js';
import { formatDuration, parseDuration } from './duration.js';
import {
  DAY_MS,
  dateOf,
  dayAt,
  dayResolver,
  loadZone,
  weekdayOf,
  zoneProblem,
} from './window-zone.js';
import type { Span } from './window-spans.js';
import {
  issue,
  type CompiledWindow,
  type CronWindowSpec,
  type ScheduleIssue,
} from './window-types.js';

/** Bounds how far back occurrences are searched; an opening longer than a month is no maintenance window. */
export const MAX_CRON_WINDOW_MS = 31 * DAY_MS;

export function compileCronWindow(
  spec: CronWindowSpec,
  at: (string | number)[],
): { window?: CompiledWindow; issues: ScheduleIssue[] } {
  const issues: ScheduleIssue[] = [];
  const cron = parseCron(String(spec.cron));
  if (!cron.ok) issues.push(issue([...at, 'cron'], cron.message));
  const duration = parseDuration(String(spec.duration ?? ''));
  if (duration === undefined || duration <= 0 || duration > MAX_CRON_WINDOW_MS) {
    issues.push(
      issue(
        [...at, 'duration'],
        `duration ${JSON.stringify(spec.duration)} must be a positive length up to 31d, e.g. 4h, 90m or 1h30m`,
      ),
    );
  }
  const zoneIssue = zoneProblem(String(spec.timezone ?? ''));
  if (zoneIssue) issues.push(issue([...at, 'timezone'], zoneIssue));
  if (!cron.ok || duration === undefined || issues.length > 0) return { issues };

  const schedule = cron.value;
  const zone = loadZone(spec.timezone);
  const times = cronTimesOfDay(schedule);
  const description = `cron "${schedule.source}" for ${formatDuration(duration)} ${zone.name}`;

  const occurrences = (from: number, to: number): Span[] => {
    const spans: Span[] = [];
    for (let day = dayAt(zone, from - duration) - 1; day <= dayAt(zone, to) + 1; day++) {
      if (!cronMatchesDay(schedule, dateOf(day), weekdayOf(day))) continue;
      const resolve = dayResolver(zone, day);
      for (const second of times) {
        for (const start of resolve(second)) {
          if (start < to && start + duration > from) spans.push({ start, end: start + duration });
        }
      }
    }
    return spans;
  };
  return { window: { description, occurrences }, issues };
}
