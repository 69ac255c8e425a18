/**
 * Decides when disruptive work may start: the union of the configured maintenance windows (kured-style
 * weekly windows and cron-plus-duration windows, each in its own IANA zone) minus the freezes, which
 * always win. With NO windows configured the schedule is always open (kured's default is every day
 * 00:00–23:59:59), so only freezes close it.
 *
 * Pure: `now` is a luxon DateTime passed in, answers are DateTimes in `now`'s zone. Compile once
 * (`compileSchedule`, which reports every problem with its path), then ask `isOpen`, `nextOpening`,
 * `closesAt` and `activeFreeze`. Overlapping or touching windows form one open period. DST rules are
 * documented in window-weekly.ts, window-cron.ts and window-freeze.ts.
 */
import { DateTime } from 'luxon';
import { compileCronWindow } from './window-cron.js';
import { compileFreeze, type CompiledFreeze } from './window-freeze.js';
import { mergeSpans, spanAt, subtractSpans, type Span } from './window-spans.js';
import type { CompiledWindow, ScheduleIssue, ScheduleSpec, WindowSpec } from './window-types.js';
import { issue } from './window-types.js';
import { compileWeekly } from './window-weekly.js';
import { DAY_MS } from './window-zone.js';

export type {
  CronWindowSpec,
  FreezeSpec,
  ScheduleIssue,
  ScheduleSpec,
  WeeklyWindowSpec,
  WindowSpec,
} from './window-types.js';

export interface Schedule {
  readonly windows: readonly CompiledWindow[];
  readonly freezes: readonly CompiledFreeze[];
  /** The freezes merged into disjoint spans. */
  readonly frozen: readonly Span[];
}

export type CompileResult =
  { ok: true; schedule: Schedule } | { ok: false; errors: ScheduleIssue[] };

/** Validates and compiles a schedule spec; on failure lists every problem, each with its path. */
export function compileSchedule(spec: ScheduleSpec): CompileResult {
  const errors: ScheduleIssue[] = [];
  const windows: CompiledWindow[] = [];
  const freezes: CompiledFreeze[] = [];
  (spec.windows ?? []).forEach((w: WindowSpec, i) => {
    const at = ['windows', i];
    const isCron = typeof w === 'object' && w !== null && 'cron' in w;
    const isWeekly = typeof w === 'object' && w !== null && ('days' in w || 'start' in w);
    if (isCron && isWeekly) {
      errors.push(
        issue(
          at,
          'a window is either weekly (days, start, end) or cron (cron, duration), not both',
        ),
      );
      return;
    }
    if (!isCron && !isWeekly) {
      errors.push(
        issue(at, 'a window needs days, start, end and timezone, or cron, duration and timezone'),
      );
      return;
    }
    const compiled = 'cron' in w ? compileCronWindow(w, at) : compileWeekly(w, at);
    errors.push(...compiled.issues);
    if (compiled.window) windows.push(compiled.window);
  });
  (spec.freezes ?? []).forEach((f, i) => {
    const compiled = compileFreeze(f, ['freezes', i]);
    errors.push(...compiled.issues);
    if (compiled.freeze) freezes.push(compiled.freeze);
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, schedule: { windows, freezes, frozen: mergeSpans(freezes) } };
}

/** How far `closesAt` follows an open period before answering 'never'. */
export const CLOSE_HORIZON_MS = 400 * DAY_MS;
/** How far `nextOpening` looks ahead (8 years separate some 29 Februaries). */
export const OPEN_HORIZON_MS = 10 * 366 * DAY_MS;
const CHUNK_MS = 14 * DAY_MS;

/** Open periods intersecting [from, to): merged windows (or everything) minus freezes. */
function openSpans(schedule: Schedule, from: number, to: number): Span[] {
  const base =
    schedule.windows.length === 0
      ? [{ start: from, end: to }]
      : mergeSpans(schedule.windows.flatMap((w) => w.occurrences(from, to)));
  return subtractSpans(base, schedule.frozen);
}

const out = (ms: number, now: DateTime): DateTime => DateTime.fromMillis(ms, { zone: now.zone });

/** Whether disruptive work may start at `now`. */
export function isOpen(schedule: Schedule, now: DateTime): boolean {
  const t = now.toMillis();
  return spanAt(openSpans(schedule, t, t + 1), t) !== undefined;
}

/** `now` when open, else the next instant the schedule opens; undefined if it never does. */
export function nextOpening(schedule: Schedule, now: DateTime): DateTime | undefined {
  const t0 = now.toMillis();
  let from = t0;
  while (from < t0 + OPEN_HORIZON_MS) {
    // Skip a freeze in one jump instead of scanning it chunk by chunk.
    const freeze = spanAt(schedule.frozen, from);
    if (freeze) {
      from = freeze.end;
      continue;
    }
    const to = from + CHUNK_MS;
    const first = openSpans(schedule, from, to).find((s) => s.end > from && s.start < to);
    if (first) return out(Math.max(first.start, from), now);
    from = to;
  }
  return undefined;
}

/**
 * When the open period around `now` ends (overlapping and touching windows merged, cut short by the
 * next freeze); undefined when closed at `now`; `'never'` when it stays open past
 * {@link CLOSE_HORIZON_MS} and no later freeze starts.
 */
export function closesAt(schedule: Schedule, now: DateTime): DateTime | 'never' | undefined {
  const t0 = now.toMillis();
  if (!isOpen(schedule, now)) return undefined;
  const nextFreeze = schedule.frozen.find((f) => f.start > t0);
  if (schedule.windows.length === 0) return nextFreeze ? out(nextFreeze.start, now) : 'never';
  for (let from = t0; from < t0 + CLOSE_HORIZON_MS; from += CHUNK_MS) {
    const to = from + CHUNK_MS;
    const span = spanAt(openSpans(schedule, from, to), from);
    if (!span) return out(from, now);
    if (span.end < to) return out(span.end, now);
  }
  // Open for the whole horizon: every day is a window day; only a freeze can close it.
  return nextFreeze ? out(nextFreeze.start, now) : 'never';
}

export interface ActiveFreeze {
  from: DateTime;
  to: DateTime;
  reason: string | undefined;
  description: string;
  /** When the freeze (merged with any overlapping or touching one) lifts. */
  until: DateTime;
}

/** The freeze in force at `now` (the first configured one, if several overlap), for its reason. */
export function activeFreeze(schedule: Schedule, now: DateTime): ActiveFreeze | undefined {
  const t = now.toMillis();
  const freeze = schedule.freezes.find((f) => f.start <= t && t < f.end);
  const merged = spanAt(schedule.frozen, t);
  if (!freeze || !merged) return undefined;
  return {
    from: out(freeze.start, now),
    to: out(freeze.end, now),
    reason: freeze.reason,
    description: freeze.description,
    until: out(merged.end, now),
  };
}

/**
 * What a timeline shades in `[from, to)`: the open periods (windows minus freezes; undefined when no
 * window is configured, so everything outside a freeze is open) and the freezes, with their reasons.
 */
export function scheduleSpans(
  schedule: Schedule,
  from: number,
  to: number,
): { open?: Span[]; freezes: (Span & { reason?: string })[] } {
  const freezes = schedule.freezes
    .filter((f) => f.end > from && f.start < to)
    .map((f) => ({ start: f.start, end: f.end, ...(f.reason ? { reason: f.reason } : {}) }));
  return schedule.windows.length === 0
    ? { freezes }
    : { open: openSpans(schedule, from, to), freezes };
}

/** One line per window and freeze, for `/maint windows` and the approval prompt. */
export function describeSchedule(schedule: Schedule): string[] {
  const windows =
    schedule.windows.length === 0
      ? ['always open (no windows configured)']
      : schedule.windows.map((w) => w.description);
  return [...windows, ...schedule.freezes.map((f) => f.description)];
}
