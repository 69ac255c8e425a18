/**
 * Every metric kubemaint exports, once: name, kind, help, labels and buckets. `serve` builds its
 * prom-client registry from it (registry.ts), the Lambda functions write the same names as CloudWatch
 * Embedded Metric Format (emf.ts), and the Grafana dashboard is checked against it
 * (docs/grafana/kubemaint.json), so no name can exist in one place only. Plain data: importing it
 * costs a Lambda cold start nothing (ADR 0016).
 */

export type MetricKind = 'gauge' | 'counter' | 'histogram';

export interface MetricDefinition {
  kind: MetricKind;
  help: string;
  labels: readonly string[];
  /** Histograms only: upper bounds in seconds. */
  buckets?: readonly number[];
  /**
   * Labels CloudWatch does not get as dimensions (each dimension value is a metric of its own, billed
   * per month): their series are summed, as `sum without (node)` would in PromQL.
   */
  emfSumOver?: readonly string[];
}

/** Seconds: a drain takes seconds to an hour; a whole maintenance minutes to hours. */
const DRAIN_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];
const MAINTENANCE_BUCKETS = [60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 7200, 14400];
const TICK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const CATALOG = {
  kubemaint_reboot_required: {
    kind: 'gauge',
    help: 'Whether the node needs a reboot (1) or not (0), as kured_reboot_required.',
    labels: ['node'],
    emfSumOver: ['node'],
  },
  kubemaint_requests: {
    kind: 'gauge',
    help: "Maintenance requests by state: each node's current request, as `kubemaint status` lists them.",
    labels: ['state'],
  },
  kubemaint_slots_in_use: {
    kind: 'gauge',
    help: 'Lock slots (Leases) held by a node.',
    labels: [],
  },
  kubemaint_slots_total: {
    kind: 'gauge',
    help: 'Lock slots there are (lock.concurrency; a Lease exists once an executor took it).',
    labels: [],
  },
  kubemaint_paused: {
    kind: 'gauge',
    help: 'Whether maintenance is paused (`kubemaint pause`): 1 or 0.',
    labels: [],
  },
  kubemaint_window_open: {
    kind: 'gauge',
    help: 'Whether a maintenance window is open now (windows minus freezes): 1 or 0.',
    labels: [],
  },
  kubemaint_drain_duration_seconds: {
    kind: 'histogram',
    help: 'Time from the executor starting to the host command being issued (lock, cordon, drain).',
    labels: ['action'],
    buckets: DRAIN_BUCKETS,
  },
  kubemaint_reboot_duration_seconds: {
    kind: 'histogram',
    help: 'Time from the host command (reboot or kubelet upgrade) to the node proven back.',
    labels: ['action'],
    buckets: MAINTENANCE_BUCKETS,
  },
  kubemaint_maintenance_duration_seconds: {
    kind: 'histogram',
    help: 'Time from a request starting (running) to done.',
    labels: ['action'],
    buckets: MAINTENANCE_BUCKETS,
  },
  kubemaint_requests_finished_total: {
    kind: 'counter',
    help: 'Requests that finished running, by action and outcome (done, failed).',
    labels: ['action', 'outcome'],
  },
  kubemaint_tick_duration_seconds: {
    kind: 'histogram',
    help: 'Wall time of one control-plane tick.',
    labels: [],
    buckets: TICK_BUCKETS,
  },
  kubemaint_tick_errors_total: {
    kind: 'counter',
    help: 'Ticks that ended with an error.',
    labels: [],
  },
  kubemaint_last_tick_timestamp_seconds: {
    kind: 'gauge',
    help: 'Unix time the last successful tick finished.',
    labels: [],
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof CATALOG;

export const METRIC_NAMES = Object.keys(CATALOG) as MetricName[];

/** The gauges one read of the fleet sets (fleet-samples.ts): replaced as a whole on each read. */
export const FLEET_GAUGES = [
  'kubemaint_reboot_required',
  'kubemaint_requests',
  'kubemaint_slots_in_use',
  'kubemaint_slots_total',
  'kubemaint_paused',
  'kubemaint_window_open',
] as const satisfies readonly MetricName[];

/** One value of one series: a gauge's value, a counter's increment, a histogram's observation. */
export interface Sample {
  name: MetricName;
  labels?: Readonly<Record<string, string>>;
  value: number;
}
