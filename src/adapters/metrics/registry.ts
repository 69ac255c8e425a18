/**
 * kubemaint's Prometheus metrics on their own prom-client Registry (never the global one, so two
 * instances in one process, as tests make them, do not collide). `kubemaint_reboot_required{node}`
 * mirrors kured's only metric, so dashboards and alerts written for kured keep working with the
 * prefix changed. Text exposition is served by the ops server's `/metrics`.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds: a drain takes seconds to an hour; a whole maintenance minutes to hours. */
const DRAIN_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];
const MAINTENANCE_BUCKETS = [60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 7200, 14400];
const TICK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface Metrics {
  readonly registry: Registry;
  /** 1 when the node carries the reboot-required mark (label or condition), else 0 (kured's gauge). */
  readonly rebootRequired: Gauge<'node'>;
  /** Requests on nodes, by state. */
  readonly requests: Gauge<'state'>;
  /** From the executor starting (request running) to the host command. */
  readonly drainDuration: Histogram<'action'>;
  /** From the host command to the node proven back (new bootID or kubelet version, Ready). */
  readonly hostDuration: Histogram<'action'>;
  /** From the request starting (running) to done. */
  readonly maintenanceDuration: Histogram<'action'>;
  /** Requests that ended, by action and outcome (done, failed). */
  readonly finished: Counter<'action' | 'outcome'>;
  readonly slotsInUse: Gauge;
  readonly slotsTotal: Gauge;
  readonly tickDuration: Histogram;
  readonly tickErrors: Counter;
  readonly lastTick: Gauge;
}

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  return {
    registry,
    rebootRequired: new Gauge({
      name: 'kubemaint_reboot_required',
      help: 'Whether the node needs a reboot (1) or not (0), as kured_reboot_required.',
      labelNames: ['node'],
      registers,
    }),
    requests: new Gauge({
      name: 'kubemaint_requests',
      help: 'Maintenance requests on nodes, by state.',
      labelNames: ['state'],
      registers,
    }),
    drainDuration: new Histogram({
      name: 'kubemaint_drain_duration_seconds',
      help: 'Time from the executor starting to the host command being issued (lock, cordon, drain).',
      labelNames: ['action'],
      buckets: DRAIN_BUCKETS,
      registers,
    }),
    hostDuration: new Histogram({
      name: 'kubemaint_reboot_duration_seconds',
      help: 'Time from the host command (reboot or kubelet upgrade) to the node proven back.',
      labelNames: ['action'],
      buckets: MAINTENANCE_BUCKETS,
      registers,
    }),
    maintenanceDuration: new Histogram({
      name: 'kubemaint_maintenance_duration_seconds',
      help: 'Time from a request starting (running) to done.',
      labelNames: ['action'],
      buckets: MAINTENANCE_BUCKETS,
      registers,
    }),
    finished: new Counter({
      name: 'kubemaint_requests_finished_total',
      help: 'Requests that finished running, by action and outcome (done, failed).',
      labelNames: ['action', 'outcome'],
      registers,
    }),
    slotsInUse: new Gauge({
      name: 'kubemaint_slots_in_use',
      help: 'Lock slots (Leases) held by a node.',
      registers,
    }),
    slotsTotal: new Gauge({
      name: 'kubemaint_slots_total',
      help: 'Lock slots that exist (the configured concurrency).',
      registers,
    }),
    tickDuration: new Histogram({
      name: 'kubemaint_tick_duration_seconds',
      help: 'Wall time of one control-plane tick.',
      buckets: TICK_BUCKETS,
      registers,
    }),
    tickErrors: new Counter({
      name: 'kubemaint_tick_errors_total',
      help: 'Ticks that ended with an error.',
      registers,
    }),
    lastTick: new Gauge({
      name: 'kubemaint_last_tick_timestamp_seconds',
      help: 'Unix time the last successful tick finished.',
      registers,
    }),
  };
}

/** The exposition for `/metrics`: Prometheus text format and its content type. */
export async function metricsText(
  metrics: Metrics,
): Promise<{ contentType: string; body: string }> {
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}
