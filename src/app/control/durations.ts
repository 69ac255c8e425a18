/**
 * Observed maintenance durations in the control plane (core/durations.ts, ADR 0017): what the
 * window-fit gate, the prompt and `kubemaint status` expect a request to take, and recording what
 * a request took once it is proven back. Without a store (a test, an old composition) or when the
 * book cannot be read, the config's `expectedDuration` is the answer, as it was before.
 */
import {
  describeFit,
  describeSource,
  durationKey,
  estimateDuration,
  observedDuration,
  type DurationBook,
  type DurationEstimate,
  type DurationLearning,
  type DurationSample,
} from '../../core/durations.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { WindowFacts } from '../../core/policy.js';
import { windowFacts } from './facts.js';
import type { ControlSettings } from './settings.js';

/** Where the book lives (a ConfigMap, kube/durations.ts). */
export interface DurationsPort {
  read(): Promise<DurationBook>;
  /** Add one sample under `key`, keeping the last `keep`. */
  record(key: string, sample: DurationSample, keep: number): Promise<void>;
}

export const DEFAULT_LEARNING: DurationLearning = { percentile: 90, samples: 20 };

type Deps = {
  durations?: DurationsPort;
  settings: Pick<ControlSettings, 'expectedDurationMs'> & { durations?: DurationLearning };
};

/** The book, or an empty one when there is no store or it cannot be read (the config answers). */
export async function readBook(deps: Pick<Deps, 'durations'>): Promise<DurationBook> {
  try {
    return (await deps.durations?.read()) ?? {};
  } catch {
    return {};
  }
}

export interface Expected extends DurationEstimate {
  /** Where it comes from, for people: `p90 of the last 12 reboots in pool blue`. */
  why: string;
}

/** What `request` is expected to take: observed for its action and pool once there is a sample. */
export function expectedFor(
  deps: Pick<Deps, 'settings'>,
  book: DurationBook,
  request: Pick<MaintenanceRequest, 'action' | 'pool'>,
): Expected {
  const learning = deps.settings.durations ?? DEFAULT_LEARNING;
  const estimate = estimateDuration(
    book,
    durationKey(request.action, request.pool),
    learning,
    deps.settings.expectedDurationMs[request.action],
  );
  return {
    ...estimate,
    why: describeSource(estimate, request.action, request.pool, learning.percentile),
  };
}

/** "fits: about 7 min, window closes in 42 min", for an open window; undefined otherwise. */
export function fitLine(expected: Expected, window: WindowFacts, now: Date): string | undefined {
  if (!window.open || window.freeze) return undefined;
  return describeFit(expected.ms, window.closesAt, now);
}

/** Record what `request` took, from its start to the proof; never fails the step that proved it. */
export async function recordObserved(
  deps: Pick<Deps, 'durations' | 'settings'>,
  request: MaintenanceRequest,
  provenAt: Date,
): Promise<void> {
  const ms = observedDuration(request, provenAt);
  if (ms === undefined || !deps.durations) return;
  const learning = deps.settings.durations ?? DEFAULT_LEARNING;
  const sample = { ms, at: provenAt.toISOString(), node: request.node };
  await deps.durations
    .record(durationKey(request.action, request.pool), sample, learning.samples)
    .catch(() => undefined);
}

/**
 * The fit line of each request still to start (proposed or approved), by id, for `kubemaint
 * status`: one read of the book, one window.
 */
export async function fitsOf(
  deps: Pick<Deps, 'durations'> & {
    settings: Deps['settings'] & Pick<ControlSettings, 'schedule' | 'timeZone'>;
    clock: { now(): Date };
  },
  requests: readonly MaintenanceRequest[],
): Promise<Record<string, string>> {
  const waiting = requests.filter((r) => r.state === 'proposed' || r.state === 'approved');
  if (waiting.length === 0) return {};
  const now = deps.clock.now();
  const window = windowFacts(deps.settings.schedule, now, deps.settings.timeZone);
  const book = await readBook(deps);
  const fits: Record<string, string> = {};
  for (const request of waiting) {
    const line = fitLine(expectedFor(deps, book, request), window, now);
    if (line) fits[request.id] = line;
  }
  return fits;
}
