/**
 * A request's life as phases on a timeline (the status page): waiting (proposed, then approved, until
 * its executor Job starts), draining (until the host command), rebooting or upgrading (until the node
 * was proven back: new bootID or kubelet version, Ready), verifying (from then until done: uncordon,
 * `lock.releaseDelay`). Read from what the request records: its history, `hostCommandIssuedAt` and
 * `backAt`; a request that ended early ends its last phase there. Also the time range a timeline shows
 * and its axis ticks. Pure: the caller passes `now`.
 */
import { DateTime } from 'luxon';
import { isActive, type MaintenanceRequest, type RequestState } from './request.js';

export const PHASES = ['waiting', 'draining', 'rebooting', 'upgrading', 'verifying'] as const;
export type Phase = (typeof PHASES)[number];

export interface PhaseSpan {
  phase: Phase;
  /** Epoch ms. */
  start: number;
  end: number;
  /** Still going at `now` (the request is active and in this phase). */
  ongoing: boolean;
}

const instant = (iso: string | undefined): number | undefined => {
  const ms = iso === undefined ? NaN : Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
};

/** When the request last entered `state`, from its history. */
const entered = (request: MaintenanceRequest, state: RequestState): number | undefined =>
  instant(request.history.findLast((t) => t.to === state)?.at);

export function requestPhases(request: MaintenanceRequest, now: number): PhaseSpan[] {
  const ended = isActive(request.state)
    ? undefined
    : (entered(request, request.state) ?? instant(request.updatedAt) ?? now);
  const host = instant(request.hostCommandIssuedAt) ?? entered(request, 'verifying');
  const starts: [Phase, number | undefined][] = [
    ['waiting', instant(request.createdAt) ?? now],
    ['draining', entered(request, 'running')],
    [request.action === 'upgrade' ? 'upgrading' : 'rebooting', host],
    ['verifying', host === undefined ? undefined : instant(request.backAt ?? request.proven?.at)],
  ];
  const known = starts.filter((s): s is [Phase, number] => s[1] !== undefined);
  const last = ended ?? now;
  return known.map(([phase, start], i) => {
    const next = known[i + 1]?.[1];
    const end = Math.max(start, Math.min(next ?? last, last));
    return { phase, start: Math.min(start, end), end, ongoing: next === undefined && !ended };
  });
}

/** The ranges a timeline offers: fitted to what it shows, or the last hour, day or week. */
export const TIMELINE_RANGES = ['fit', '1h', '6h', '24h', '7d'] as const;
export type TimelineRange = (typeof TIMELINE_RANGES)[number];

const HOUR_MS = 3_600_000;
const RANGE_MS: Record<Exclude<TimelineRange, 'fit'>, number> = {
  '1h': HOUR_MS,
  '6h': 6 * HOUR_MS,
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
};
/** `fit` never shows less (a demo's minute would fill the page) nor older than a week. */
const FIT_MIN_MS = 5 * 60_000;
const FIT_MAX_MS = RANGE_MS['7d'];

export const isTimelineRange = (text: string): text is TimelineRange =>
  (TIMELINE_RANGES as readonly string[]).includes(text);

/** `[from, to)` in epoch ms: the range ends a little after now, so the present is not the edge. */
export function timelineWindow(
  range: TimelineRange,
  phases: readonly Pick<PhaseSpan, 'start'>[],
  now: number,
): { from: number; to: number } {
  let span: number;
  if (range === 'fit') {
    const earliest = Math.min(
      now,
      ...phases.map((p) => p.start).filter((s) => s >= now - FIT_MAX_MS),
    );
    span = Math.min(FIT_MAX_MS, Math.max(FIT_MIN_MS, (now - earliest) * 1.1));
  } else span = RANGE_MS[range];
  return { from: now - span, to: now + span * 0.04 };
}

/** Tick steps in minutes, the smallest giving at most `maxTicks`. */
const STEPS_MIN = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440];

/** Axis ticks on round local times of `zone` (DST-aware: 02:00 is skipped where it does not exist). */
export function axisTicks(
  window: { from: number; to: number },
  zone: string,
  maxTicks = 8,
): { at: number; label: string }[] {
  const spanMin = (window.to - window.from) / 60_000;
  const step = STEPS_MIN.find((s) => spanMin / s <= maxTicks) ?? 1440;
  const format = step >= 1440 ? 'ccc d LLL' : spanMin > 1440 ? 'ccc HH:mm' : 'HH:mm';
  let at = DateTime.fromMillis(window.from, { zone }).startOf(step >= 1440 ? 'day' : 'hour');
  const ticks: { at: number; label: string }[] = [];
  while (at.toMillis() < window.to && ticks.length < 200) {
    if (at.toMillis() >= window.from && isRound(at, step))
      ticks.push({ at: at.toMillis(), label: at.setLocale('en').toFormat(format) });
    at = step >= 1440 ? at.plus({ days: 1 }) : at.plus({ minutes: Math.min(step, 60) });
  }
  return ticks;
}

/** Whether a local time lies on the step's grid (6h steps at 00, 06, 12, 18 local). */
function isRound(at: DateTime, step: number): boolean {
  const minuteOfDay = at.hour * 60 + at.minute;
  return step >= 1440 || minuteOfDay % step === 0;
}

/** `14:03:27` in `zone`, or `Tue 3 Nov 14:03` with the date, for the timeline's labels. */
export function localTime(ms: number, zone: string, withDate = false): string {
  return DateTime.fromMillis(ms, { zone })
    .setLocale('en')
    .toFormat(withDate ? 'ccc d LLL HH:mm' : 'HH:mm:ss');
}
