/**
 * Sets the gauges from what a tick read (nodes and slots) and records a tick's duration and outcome.
 * Pure over the Metrics object: no API calls here, the caller passes what it already has, so metrics
 * never cost the cluster an extra request.
 */
import { ACTIVE_STATES, FINAL_STATES } from '../../core/request.js';
import { LABEL_REBOOT_REQUIRED } from '../../core/names.js';
import type { NodeView, SlotView } from '../../app/control/ports.js';
import type { Metrics } from './registry.js';

export interface ObserveOptions {
  /** @default 'kubemaint.io/reboot-required' */
  rebootLabel?: string;
  /** Node condition types that also mean "reboot required". @default ['RebootRequired'] */
  conditionTypes?: readonly string[];
  /** Configured concurrency: slots may not all exist as Leases yet. */
  concurrency?: number;
}

/**
 * Replaces the per-node and per-state series with what `nodes` shows: a node the read did not
 * include (neither marked nor carrying a request) has no `kubemaint_reboot_required` series, as a
 * node without kured has none. Every state is always exported (0 when none), so rates and alerts
 * on `kubemaint_requests{state="failed"}` never see a missing series.
 */
export function observeCluster(
  metrics: Metrics,
  nodes: readonly NodeView[],
  slots: readonly SlotView[],
  options: ObserveOptions = {},
): void {
  const label = options.rebootLabel ?? LABEL_REBOOT_REQUIRED;
  const conditions = options.conditionTypes ?? ['RebootRequired'];
  metrics.rebootRequired.reset();
  const counts = new Map<string, number>(
    [...ACTIVE_STATES, ...FINAL_STATES].map((state) => [state, 0]),
  );
  for (const node of nodes) {
    const marked =
      node.labels[label] === 'true' || conditions.some((type) => node.conditions[type] === 'True');
    metrics.rebootRequired.set({ node: node.name }, marked ? 1 : 0);
    if (node.request) counts.set(node.request.state, (counts.get(node.request.state) ?? 0) + 1);
  }
  for (const [state, count] of counts) metrics.requests.set({ state }, count);
  metrics.slotsInUse.set(slots.filter((s) => s.holder !== '').length);
  metrics.slotsTotal.set(Math.max(slots.length, options.concurrency ?? 0));
}

/** Times one tick: duration always, the error counter on a throw, the timestamp on success. */
export async function timeTick<T>(
  metrics: Metrics,
  clock: { now(): Date },
  tick: () => Promise<T>,
): Promise<T> {
  const started = clock.now().getTime();
  try {
    const result = await tick();
    metrics.lastTick.set(clock.now().getTime() / 1000);
    return result;
  } catch (error) {
    metrics.tickErrors.inc();
    throw error;
  } finally {
    metrics.tickDuration.observe((clock.now().getTime() - started) / 1000);
  }
}
