/**
 * How long maintenance takes, learned from what happened (issue 18; ADR 0017): each request proven
 * back adds one sample — from the moment it started running to the proof (hooks, cordon, drain, host
 * command and the node's return) — to the book of its action and node pool; the window-fit gate
 * then uses a high percentile of the last samples instead of the config's fixed `expectedDuration`,
 * which stays the answer until there is a sample. The book is bounded (samples per key, keys in all)
 * because it lives in one ConfigMap. Pure: the caller reads and writes the book and passes `now`.
 */
import type { Action, MaintenanceRequest } from './request.js';

export interface DurationSample {
  /** Running → proven back, in milliseconds. */
  ms: number;
  /** ISO instant of the proof. */
  at: string;
  node: string;
}

/** Samples by `durationKey`, oldest first. */
export type DurationBook = Readonly<Record<string, readonly DurationSample[]>>;

export interface DurationLearning {
  /** Which percentile of the samples to expect (nearest rank). @default 90 */
  percentile: number;
  /** How many recent samples a key keeps (and the estimate reads). @default 20 */
  samples: number;
}

/** At most this many keys (action × pool): the oldest-updated ones go first. */
export const MAX_KEYS = 64;

/** `reboot/` for the fleet without pools, `reboot/blue` for pool blue. */
export const durationKey = (action: Action, pool: string | undefined): string =>
  `${action}/${pool ?? ''}`;

/** The book with `sample` added under `key`, trimmed to the last `keep` samples and MAX_KEYS keys. */
export function addSample(
  book: DurationBook,
  key: string,
  sample: DurationSample,
  keep: number,
): Record<string, DurationSample[]> {
  const next: Record<string, DurationSample[]> = {};
  for (const [k, samples] of Object.entries(book)) next[k] = [...samples];
  next[key] = [...(next[key] ?? []), sample].slice(-Math.max(1, keep));
  const keys = Object.keys(next);
  if (keys.length > MAX_KEYS) {
    const newest = (k: string) => next[k]!.at(-1)?.at ?? '';
    const dropped = keys
      .sort((a, b) => (newest(a) < newest(b) ? -1 : 1))
      .slice(0, keys.length - MAX_KEYS);
    for (const k of dropped) delete next[k];
  }
  return next;
}

export interface DurationEstimate {
  ms: number;
  /** `observed`: from samples of this action and pool; `config`: the configured expectedDuration. */
  source: 'observed' | 'config';
  /** How many samples the estimate read (0 for `config`). */
  samples: number;
}

/** The nearest-rank percentile of the last `learning.samples` samples, or the fallback. */
export function estimateDuration(
  book: DurationBook,
  key: string,
  learning: DurationLearning,
  fallbackMs: number,
): DurationEstimate {
  const recent = (book[key] ?? []).slice(-learning.samples).map((s) => s.ms);
  if (recent.length === 0) return { ms: fallbackMs, source: 'config', samples: 0 };
  const sorted = [...recent].sort((a, b) => a - b);
  const rank = Math.ceil((learning.percentile / 100) * sorted.length);
  const ms = sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
  return { ms, source: 'observed', samples: sorted.length };
}

/** Running → proven back, from the request's history; undefined when it never ran. */
export function observedDuration(request: MaintenanceRequest, provenAt: Date): number | undefined {
  const started = request.history.findLast((h) => h.to === 'running')?.at;
  const ms = provenAt.getTime() - Date.parse(started ?? '');
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** `7 min`, `1 h 5 min`: how people say a maintenance length (minutes, rounded up when `up`). */
export function minutes(ms: number, up = false): string {
  const total = Math.max(0, up ? Math.ceil(ms / 60_000) : Math.floor(ms / 60_000));
  if (total < 60) return `${total} min`;
  const h = Math.floor(total / 60);
  const m = total % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** Where an estimate comes from, for people: `p90 of the last 12 reboots in pool blue`. */
export function describeSource(
  estimate: DurationEstimate,
  action: Action,
  pool: string | undefined,
  percentile: number,
): string {
  if (estimate.source === 'config') return `${action}.expectedDuration; nothing observed yet`;
  const noun = `${action}${estimate.samples === 1 ? '' : 's'}`;
  const where = pool ? ` in pool ${pool}` : '';
  return estimate.samples === 1
    ? `the last ${noun}${where}`
    : `p${percentile} of the last ${estimate.samples} ${noun}${where}`;
}

/**
 * The window-fit line of a prompt and `kubemaint status`: "fits: about 7 min, window closes in 42
 * min" (or "does not fit"); without a closing time, only how long it takes.
 */
export function describeFit(estimateMs: number, closesAt: Date | undefined, now: Date): string {
  const about = `about ${minutes(estimateMs, true)}`;
  if (!closesAt) return `takes ${about}`;
  const left = closesAt.getTime() - now.getTime();
  const verdict = estimateMs <= left ? 'fits' : 'does not fit';
  return `${verdict}: ${about}, window closes in ${minutes(left)}`;
}
