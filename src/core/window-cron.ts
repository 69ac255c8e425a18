/**
 * Cron-start-plus-duration windows (`cron: "0 2 * * 6#1"`, `duration: 4h`, `timezone: Europe/Berlin`):
 * each firing of the cron, read on the zone's wall clock, opens the window for `duration` of real
 * (elapsed) time.
 *
 * The pattern is croner's (ADR 0039): 5 fields, names, ranges, steps (`5/15` = `5-59/15`), `#` for the
 * nth weekday, `L`, `W`, the `@daily`-style macros, and day-of-month OR day-of-week when both are
 * restricted. croner says which days fire, on a clock without DST (UTC), and its parsed fields give
 * the times of day; the zone is applied here, so that no window is silently lost (croner's own DST
 * rule fires a fixed time once in a repeated hour and skips an interval pattern's times in a gap):
 * - a firing time inside a spring-forward gap fires when the clock jumps (`30 2 * * 0` in New York on
 *   2026-03-08 opens at 03:00 EDT);
 * - a firing time inside a fall-back overlap fires at both instants the wall clock shows it, and the
 *   two openings merge (`30 1 * * 0`, 1h, New York 2026-11-01: 01:30 EDT to 02:30 EST). Sub-hourly
 *   patterns therefore keep covering the repeated hour.
 */
import { Cron, CronPattern } from 'croner';
import { formatDuration, parseDuration } from './duration.js';
import { DAY_MS, dayAt, dayResolver, loadZone, zoneProblem } from './window-zone.js';
import type { Span } from './window-spans.js';
import {
  issue,
  type CompiledWindow,
  type CronWindowSpec,
  type ScheduleIssue,
} from './window-types.js';

/** Bounds how far back occurrences are searched; an opening longer than a month is no maintenance window. */
export const MAX_CRON_WINDOW_MS = 31 * DAY_MS;

const FIELDS_HINT = 'five fields: minute hour day-of-month month day-of-week, e.g. "0 2 * * 6"';

/** What each field allows, for the message that names the field croner refused. */
const FIELDS = [
  { name: 'minute', allowed: '0-59' },
  { name: 'hour', allowed: '0-23' },
  { name: 'day-of-month', allowed: '1-31, L (last day) or nW (nearest weekday)' },
  { name: 'month', allowed: '1-12 or jan-dec' },
  {
    name: 'day-of-week',
    allowed: '0-7 or sun-sat (0 and 7 are Sunday), n#k (6#1: first Saturday) or nL',
  },
] as const;

// sloppyRanges: `5/15` is `5-59/15`, as Vixie cron reads it. utcOffset 0: a clock without DST.
const OPTIONS = { mode: '5-part', sloppyRanges: true } as const;
const read = (pattern: string): Cron => new Cron(pattern, { ...OPTIONS, utcOffset: 0 });

/** A cron as croner read it: which days fire (croner's `match`), and its times of day. */
export interface CronSchedule {
  readonly cron: Cron;
  /** Seconds since midnight of every firing on a day that fires, ascending (croner's parsed fields). */
  readonly times: readonly number[];
}

/**
 * The cron, checked, as croner reads it on a UTC clock. Five fields only: croner would also take
 * seconds and years, which a maintenance window has no use for and which shift every field's meaning.
 */
export function parseCronPattern(
  text: string,
): { ok: true; value: CronSchedule } | { ok: false; message: string } {
  const source = text.trim();
  const parts = source.split(/\s+/).filter(Boolean);
  if (!source.startsWith('@') && parts.length !== 5) {
    const extra =
      parts.length === 6 || parts.length === 7 ? ' (a seconds or year field is not supported)' : '';
    return {
      ok: false,
      message: `cron ${JSON.stringify(source)} has ${parts.length} fields${extra}: use ${FIELDS_HINT}`,
    };
  }
  try {
    const cron = read(source);
    // In five fields the times of day do not depend on the day: croner's hour and minute fields.
    const { hour, minute } = new CronPattern(source, undefined, OPTIONS);
    const times = hour.flatMap((h, hi) =>
      h ? minute.flatMap((m, mi) => (m ? [hi * 3600 + mi * 60] : [])) : [],
    );
    return { ok: true, value: { cron, times } };
  } catch (error) {
    return { ok: false, message: `cron ${JSON.stringify(source)}: ${refusal(parts, error)}` };
  }
}

/** Names the field croner refused (each tried alone, the others `*`), else croner's own words. */
function refusal(parts: string[], error: unknown): string {
  const bad = parts.length === 5 ? FIELDS.findIndex((_, i) => !accepts(parts, i)) : -1;
  const field = FIELDS[bad];
  if (field) {
    return `${field.name} ${JSON.stringify(parts[bad])} is out of range or not a cron value: allowed ${field.allowed}, as a list (a,b), range (a-b) or step (*/n, a-b/n)`;
  }
  const why = (error instanceof Error ? error.message : String(error)).replace(/^Cron\w*: /, '');
  return `${why}; use ${FIELDS_HINT}`;
}

function accepts(parts: string[], index: number): boolean {
  try {
    read(parts.map((p, i) => (i === index ? p : '*')).join(' '));
    return true;
  } catch {
    return false;
  }
}

/**
 * The wall-clock firings in [fromWall, toWall), each a wall time encoded as a UTC timestamp. Day by
 * day: croner says whether a day fires (one `match` of its first time), the times come from its
 * fields. Walking croner's nextRun instead costs about 0.15 ms a firing, 0.3 s for a week of a
 * five-minute pattern, on every tick.
 */
export function wallFirings(schedule: CronSchedule, fromWall: number, toWall: number): number[] {
  const [first] = schedule.times;
  if (first === undefined) return [];
  const firings: number[] = [];
  for (let day = Math.floor(fromWall / DAY_MS); day * DAY_MS < toWall; day++) {
    const midnight = day * DAY_MS;
    if (!schedule.cron.match(new Date(midnight + first * 1000))) continue;
    for (const second of schedule.times) {
      const wall = midnight + second * 1000;
      if (wall >= fromWall && wall < toWall) firings.push(wall);
    }
  }
  return firings;
}

export function compileCronWindow(
  spec: CronWindowSpec,
  at: (string | number)[],
): { window?: CompiledWindow; issues: ScheduleIssue[] } {
  const issues: ScheduleIssue[] = [];
  const source = String(spec.cron).trim();
  const cron = parseCronPattern(source);
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

  const zone = loadZone(spec.timezone);
  const description = `cron "${source}" for ${formatDuration(duration)} ${zone.name}`;

  const occurrences = (from: number, to: number): Span[] => {
    const spans: Span[] = [];
    // Whole local days, one either side: a wall time near midnight may lie on either side of an instant.
    const firstDay = dayAt(zone, from - duration) - 1;
    const lastDay = dayAt(zone, to) + 1;
    // One resolver a day: it asks the zone for offsets, a firing only does arithmetic.
    let resolver = { day: Number.NaN, resolve: (_second: number): number[] => [] };
    for (const wall of wallFirings(cron.value, firstDay * DAY_MS, (lastDay + 1) * DAY_MS)) {
      const day = Math.floor(wall / DAY_MS);
      if (resolver.day !== day) resolver = { day, resolve: dayResolver(zone, day) };
      for (const start of resolver.resolve((wall - day * DAY_MS) / 1000)) {
        if (start < to && start + duration > from) spans.push({ start, end: start + duration });
      }
    }
    return spans;
  };
  return { window: { description, occurrences }, issues };
}
