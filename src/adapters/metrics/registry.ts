/**
 * kubemaint's Prometheus metrics: the catalog's metrics on their own prom-client Registry (never the
 * global one, so two instances in one process, as tests make them, do not collide).
 * `kubemaint_reboot_required{node}` mirrors kured's only metric, so dashboards and alerts written for
 * kured keep working with the prefix changed. Text exposition is served by the ops server's `/metrics`.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CATALOG, METRIC_NAMES, type MetricName, type Sample } from './catalog.js';
import { CLUSTER_LABEL } from './cluster-label.js';

export interface Metrics {
  readonly registry: Registry;
  /** Sets gauges, adds to counters, observes histograms. */
  record(samples: readonly Sample[]): void;
  /** Drops every series of these metrics (before a read that sets them all again). */
  reset(names: readonly MetricName[]): void;
}

type Metric = Gauge | Counter | Histogram;

/**
 * `clusters`: the config lists several clusters, and every metric takes a `cluster` label. Only
 * then: a metric with label names has no series until one is set, so one cluster's label-less
 * counters (`kubemaint_tick_errors_total 0`) would vanish from /metrics.
 */
export function createMetrics(
  options: { processMetrics?: boolean; clusters?: boolean } = {},
): Metrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const metrics = new Map<MetricName, Metric>(
    METRIC_NAMES.map((name) => [name, metricFor(name, registry, options.clusters ?? false)]),
  );
  return {
    registry,
    record(samples) {
      for (const { name, labels = {}, value } of samples) {
        const metric = metrics.get(name)!;
        if (metric instanceof Gauge) metric.set(labels, value);
        else if (metric instanceof Counter) metric.inc(labels, value);
        else metric.observe(labels, value);
      }
    },
    reset(names) {
      for (const name of names) metrics.get(name)!.reset();
    },
  };
}

function metricFor(name: MetricName, registry: Registry, clusters: boolean): Metric {
  const definition: (typeof CATALOG)[MetricName] = CATALOG[name];
  const common = {
    name,
    help: definition.help,
    // `cluster` on every metric only when the config lists clusters (observe.ts): one cluster's
    // series stay as they were, so its dashboards and alerts keep working.
    labelNames: clusters ? [...definition.labels, CLUSTER_LABEL] : [...definition.labels],
    registers: [registry],
  };
  switch (definition.kind) {
    case 'gauge':
      return new Gauge(common);
    case 'counter':
      return new Counter(common);
    case 'histogram':
      return new Histogram({ ...common, buckets: [...definition.buckets] });
  }
}

/** The exposition for `/metrics`: Prometheus text format and its content type. */
export async function metricsText(
  metrics: Metrics,
): Promise<{ contentType: string; body: string }> {
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}
