/**
 * Wall-clock arithmetic in an IANA zone, in epoch milliseconds. Windows are written in local time
 * ("Saturday 02:00 Europe/Berlin"), so every window needs two answers: which local day and time an
 * instant is, and which instant(s) a local time is. DST makes the second one interesting:
 * - a local time inside a spring-forward gap names no instant; it resolves to the instant the clock
 *   jumps (the first moment the wall clock is at or past it);
 * - a local time inside a fall-back overlap names two instants; both are returned, earliest first.
 * Luxon only supplies the zone's offset rules; nothing here depends on luxon's own gap/overlap
 * guesses, which vary with the current date.
 */
import { IANAZone } from 'luxon';

export const DAY_MS = 86_400_000;
export const MINUTE_MS = 60_000;

/** A day number: whole days since 1970-01-01 on the local calendar (weekday 4 = Thursday). */
export type DayNumber = number;

export interface TimeZone {
  /** The canonical IANA name (`europe/berlin` is stored as `Europe/Berlin`). */
  name: string;
  /** Offset from UTC in minutes at `ms`. */
  offset(ms: number): number;
}

/** Why `name` cannot be used as a window's zone, or undefined when it can. */
export function zoneProblem(name: string): string | undefined {
  if (name.trim() === '') return 'time zone is empty: name an IANA zone like Europe/Berlin or UTC';
  if (name.trim().toLowerCase() === 'local') {
    return '"Local" depends on the machine the control plane happens to run on (a Lambda is UTC, a laptop is not): name the IANA zone, e.g. Europe/Berlin or UTC';
  }
  if (!IANAZone.isValidZone(name.trim())) {
    return `"${name}" is not an IANA time zone: use a name like Europe/Berlin, America/New_York or UTC`;
  }
  return undefined;
}

/** Loads a zone that passed {@link zoneProblem}. */
export function loadZone(name: string): TimeZone {
  const trimmed = name.trim();
  const zone = IANAZone.create(trimmed);
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: trimmed }).resolvedOptions()
    .timeZone;
  return { name: canonical, offset: (ms) => zone.offset(ms) };
}

/** The local wall clock at `ms`, encoded as if it were a UTC timestamp (easy day/time arithmetic). */
export function wallAt(zone: TimeZone, ms: number): number {
  return ms + zone.offset(ms) * MINUTE_MS;
}

/** The local day number of instant `ms`. */
export function dayAt(zone: TimeZone, ms: number): DayNumber {
  return Math.floor(wallAt(zone, ms) / DAY_MS);
}

/** 0 = Sunday … 6 = Saturday, as in cron and kured. */
export function weekdayOf(day: DayNumber): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** Calendar fields of a day number; month is 1-12. */
export function dateOf(day: DayNumber): { year: number; month: number; day: number } {
  const d = new Date(day * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The day number of a calendar date. */
export function dayNumberOf(year: number, month: number, day: number): DayNumber {
  return Math.floor(Date.UTC(year, month - 1, day) / DAY_MS);
}

/**
 * The instants at which the local wall clock shows `wall` (a wall time encoded like {@link wallAt}):
 * one normally, two in a fall-back overlap (earliest first), and in a spring-forward gap the single
 * instant at which the clock jumps over it.
 */
export function instantsAt(zone: TimeZone, wall: number): number[] {
  const offsets = new Set([
    zone.offset(wall - DAY_MS),
    zone.offset(wall),
    zone.offset(wall + DAY_MS),
  ]);
  const found = [...offsets]
    .map((o) => wall - o * MINUTE_MS)
    .filter((t) => wallAt(zone, t) === wall)
    .sort((a, b) => a - b);
  if (found.length > 0) return found;
  const [before, after] = [...offsets].sort((a, b) => a - b);
  return [gapEnd(zone, wall - (after ?? 0) * MINUTE_MS, wall - (before ?? 0) * MINUTE_MS)];
}

/** Binary search for the first instant in (lo, hi] whose offset differs from the one at lo. */
function gapEnd(zone: TimeZone, lo: number, hi: number): number {
  const from = zone.offset(lo);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zone.offset(mid) === from) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * A resolver for one local day: converts seconds-of-day to instants, calling the zone only when the
 * day contains an offset change (zone lookups cost microseconds each; a minute-level cron has 1440
 * times a day).
 */
export function dayResolver(zone: TimeZone, day: DayNumber): (secondOfDay: number) => number[] {
  const wall0 = day * DAY_MS;
  // ±14 h covers every UTC offset in use, so these bracket the whole local day (and a bit).
  const early = zone.offset(wall0 - 14 * 3_600_000);
  const late = zone.offset(wall0 + DAY_MS + 14 * 3_600_000);
  if (early === late) return (s) => [wall0 + s * 1000 - early * MINUTE_MS];
  return (s) => instantsAt(zone, wall0 + s * 1000);
}
