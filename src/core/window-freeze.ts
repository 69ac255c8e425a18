/**
 * Freezes: ranges in which nothing disruptive starts, whatever the windows say (holiday change
 * freezes, a product launch). `from` and `to` are dates (`2026-12-24`: whole days, `to` inclusive) or
 * local datetimes (`2026-12-24T18:00`, `to` exclusive) in the freeze's zone (default UTC), or
 * datetimes with their own offset (`2026-12-24T18:00:00+01:00`, `...Z`).
 * DST errs toward frozen: an ambiguous `from` takes its first instant and an ambiguous `to` its last;
 * a time inside a gap takes the instant the clock jumps.
 */
import { DateTime } from 'luxon';
import {
  DAY_MS,
  dayNumberOf,
  instantsAt,
  loadZone,
  zoneProblem,
  type TimeZone,
} from './window-zone.js';
import type { Span } from './window-spans.js';
import { issue, type FreezeSpec, type ScheduleIssue } from './window-types.js';

export interface CompiledFreeze extends Span {
  reason: string | undefined;
  /** The spec as written, for messages. */
  description: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;
const WITH_OFFSET =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
const FORMS =
  'use a date like 2026-12-24, a local datetime like 2026-12-24T18:00, or one with an offset like 2026-12-24T18:00:00+01:00';

/** Resolves one end of a freeze to an instant, or a message. */
function resolveEnd(text: string, zone: TimeZone, end: 'from' | 'to'): number | string {
  const trimmed = text.trim();
  const validDate = (y: number, m: number, d: number) =>
    DateTime.utc(y, m, d).isValid ? dayNumberOf(y, m, d) : undefined;
  const pick = (instants: number[]) => (end === 'from' ? instants[0] : instants.at(-1)) ?? NaN;
  const date = DATE.exec(trimmed);
  if (date) {
    const day = validDate(Number(date[1]), Number(date[2]), Number(date[3]));
    if (day === undefined) return `${JSON.stringify(text)} is not a calendar date`;
    // A date-only `to` includes that whole day: the freeze ends at the next local midnight.
    return pick(instantsAt(zone, (end === 'to' ? day + 1 : day) * DAY_MS));
  }
  const local = LOCAL.exec(trimmed);
  if (local) {
    const [, y, mo, d, h, mi, s] = local.map(Number);
    const day = validDate(y ?? 0, mo ?? 0, d ?? 0);
    if (day === undefined || (h ?? 0) > 23 || (mi ?? 0) > 59 || (s ?? 0) > 59) {
      return `${JSON.stringify(text)} is not a valid date and time`;
    }
    return pick(
      instantsAt(zone, day * DAY_MS + ((h ?? 0) * 3600 + (mi ?? 0) * 60 + (s || 0)) * 1000),
    );
  }
  if (WITH_OFFSET.test(trimmed)) {
    const dt = DateTime.fromISO(trimmed.replace(' ', 'T'), { setZone: true });
    if (dt.isValid) return dt.toMillis();
    return `${JSON.stringify(text)} is not a valid date and time`;
  }
  return `${JSON.stringify(text)} is not a date: ${FORMS}`;
}

export function compileFreeze(
  spec: FreezeSpec,
  at: (string | number)[],
): { freeze?: CompiledFreeze; issues: ScheduleIssue[] } {
  const issues: ScheduleIssue[] = [];
  const zoneName = spec.timezone ?? 'UTC';
  const zoneIssue = zoneProblem(String(zoneName));
  if (zoneIssue) return { issues: [issue([...at, 'timezone'], zoneIssue)] };
  const zone = loadZone(zoneName);
  const from = resolveEnd(String(spec.from ?? ''), zone, 'from');
  const to = resolveEnd(String(spec.to ?? ''), zone, 'to');
  if (typeof from === 'string') issues.push(issue([...at, 'from'], from));
  if (typeof to === 'string') issues.push(issue([...at, 'to'], to));
  if (typeof from === 'string' || typeof to === 'string') return { issues };
  if (to <= from) {
    return {
      issues: [
        issue(
          [...at, 'to'],
          `freeze ends (${spec.to}) before it starts (${spec.from}): put the later date in "to" (a date-only "to" includes that day)`,
        ),
      ],
    };
  }
  const reason = spec.reason?.trim() || undefined;
  const description = `freeze ${spec.from} → ${spec.to} ${zone.name}${reason ? `: ${reason}` : ''}`;
  return { freeze: { start: from, end: to, reason, description }, issues };
}
