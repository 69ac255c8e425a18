/**
 * Shapes shared by the window modules: the YAML specs the config accepts, the problems compiling them
 * reports, and what a compiled window must answer.
 */
import type { Span } from './window-spans.js';

/** kured-style weekly window; `end` before `start` wraps past midnight (kured `--reboot-days` etc.). */
export interface WeeklyWindowSpec {
  days: (string | number)[];
  start: string;
  end: string;
  timezone: string;
}

/** A 5-field cron expression marking each opening, kept open for `duration` (e.g. `4h`). */
export interface CronWindowSpec {
  cron: string;
  duration: string;
  timezone: string;
}

export type WindowSpec = WeeklyWindowSpec | CronWindowSpec;

/** A date (`2026-12-24`, whole days, `to` inclusive) or datetime (`2026-12-24T18:00`) range. */
export interface FreezeSpec {
  from: string;
  to: string;
  /** @default 'UTC' (kured's default zone); ignored for datetimes that carry an offset or `Z`. */
  timezone?: string;
  reason?: string;
}

export interface ScheduleSpec {
  windows?: WindowSpec[];
  freezes?: FreezeSpec[];
}

/** One problem in a spec: where (`windows[0].start`, also as segments) and what would work. */
export interface ScheduleIssue {
  path: string;
  segments: (string | number)[];
  message: string;
}

export interface CompiledWindow {
  /** One line for people: `sat,sun 22:00–06:00 Europe/Berlin (ends the next day)`. */
  description: string;
  /** Occurrences whose span intersects `[from, to)`, in any order; may reach outside the range. */
  occurrences(from: number, to: number): Span[];
}

/** Builds an issue from a path of segments. */
export function issue(segments: (string | number)[], message: string): ScheduleIssue {
  const path = segments
    .map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join('');
  return { path, segments, message };
}
