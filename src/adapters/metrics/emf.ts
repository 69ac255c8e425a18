/**
 * CloudWatch Embedded Metric Format: samples as JSON lines that CloudWatch Logs turns into metrics
 * when a Lambda function writes them to stdout (docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/
 * CloudWatch_Embedded_Metric_Format_Specification.html). The catalog's names, so one dashboard query
 * language aside, CloudWatch and Prometheus show the same metrics. No prom-client and no SDK: the
 * Lambda's cold import stays as it was (ADR 0016).
 */
import { CATALOG, type MetricName, type Sample } from './catalog.js';

/** CloudWatch's limits per document: metrics in one directive, values in one metric's array. */
const MAX_METRICS = 100;
const MAX_VALUES = 100;

export interface EmfOptions {
  /** @default 'kubemaint' */
  namespace?: string;
  at: Date;
  /** Dimensions every metric gets, e.g. `{ cluster: 'prod' }`. */
  dimensions: Readonly<Record<string, string>>;
}

const UNITS = { gauge: 'None', counter: 'Count', histogram: 'Seconds' } as const;

/**
 * One document per set of dimension values. A histogram's observations stay separate values (so
 * CloudWatch keeps their percentiles); counter increments add up; a gauge keeps its last value,
 * summed over the labels the catalog keeps out of CloudWatch (`kubemaint_reboot_required` without
 * `node`: how many nodes are marked).
 */
export function emfLines(samples: readonly Sample[], options: EmfOptions): string[] {
  const groups = new Map<string, { labels: Record<string, string>; values: Values }>();
  for (const sample of samples) {
    const definition: (typeof CATALOG)[MetricName] = CATALOG[sample.name];
    const dropped: readonly string[] = 'emfSumOver' in definition ? definition.emfSumOver : [];
    const labels = Object.fromEntries(
      Object.entries(sample.labels ?? {})
        .filter(([key]) => !dropped.includes(key))
        .sort(([a], [b]) => a.localeCompare(b)),
    );
    const key = JSON.stringify(labels);
    const group = groups.get(key) ?? { labels, values: new Map() as Values };
    groups.set(key, group);
    add(group.values, sample, dropped.length > 0);
  }
  return [...groups.values()].flatMap(({ labels, values }) =>
    documents({ ...options.dimensions, ...labels }, values, options),
  );
}

/** Per metric: its values, and for a summed gauge the series already summed (by their labels). */
type Values = Map<MetricName, { values: number[]; series?: Map<string, number> }>;

function add(values: Values, sample: Sample, summed: boolean): void {
  const entry = values.get(sample.name) ?? { values: [] };
  values.set(sample.name, entry);
  const kind = CATALOG[sample.name].kind;
  if (kind === 'histogram') entry.values.push(sample.value);
  else if (kind === 'counter') entry.values = [(entry.values[0] ?? 0) + sample.value];
  else if (!summed) entry.values = [sample.value];
  else {
    // A gauge set twice for one series counts once, with its last value.
    entry.series ??= new Map();
    entry.series.set(JSON.stringify(sample.labels ?? {}), sample.value);
    entry.values = [[...entry.series.values()].reduce((sum, v) => sum + v, 0)];
  }
}

function documents(
  dimensions: Record<string, string>,
  values: Values,
  options: EmfOptions,
): string[] {
  // A document holds one value (or array) per name: a long histogram's arrays go to later ones.
  const parts: Map<MetricName, number[]>[] = [];
  for (const [name, entry] of values) {
    for (const chunk of chunks(entry.values, MAX_VALUES)) {
      let part = parts.find((p) => !p.has(name) && p.size < MAX_METRICS);
      if (!part) parts.push((part = new Map<MetricName, number[]>()));
      part.set(name, chunk);
    }
  }
  return parts.map((part) =>
    JSON.stringify({
      _aws: {
        Timestamp: options.at.getTime(),
        CloudWatchMetrics: [
          {
            Namespace: options.namespace ?? 'kubemaint',
            Dimensions: [Object.keys(dimensions)],
            Metrics: [...part.keys()].map((name) => ({
              Name: name,
              Unit: UNITS[CATALOG[name].kind],
            })),
          },
        ],
      },
      ...dimensions,
      ...Object.fromEntries(
        [...part].map(([name, chunk]) => [name, chunk.length === 1 ? chunk[0] : chunk]),
      ),
    }),
  );
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
