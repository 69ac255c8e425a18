/**
 * The QueryPort over Prometheus: a gate's query as an instant query, or, for a gate with `for`, as a
 * subquery over that span (`(<query>)[5m:10s]`), cut into the steps Prometheus evaluated so the core
 * judges the answer at each one. Prometheus keeps the history, so kubemaint keeps none. Steps are
 * aligned to multiples of the step, as Prometheus aligns a subquery's; a step where the query had no
 * series is an empty answer (which only `empty` accepts).
 */
import type { QueryPort } from '../../app/control/ports.js';
import type { QueryGate, QuerySample, QueryStep } from '../../core/query-gate.js';
import { instantQuery, sampleValue, type PrometheusHttpOptions, type QueryData } from './http.js';

/** Steps of at most 60 s and at least 1 s, about 30 across the span. */
export function stepSeconds(forMs: number): number {
  return Math.max(1, Math.min(60, Math.round(forMs / 30_000)));
}

export function prometheusQueries(
  options: PrometheusHttpOptions & { now?: () => Date },
): QueryPort {
  const now = options.now ?? (() => new Date());
  return {
    async answer(gate: QueryGate) {
      const at = now();
      try {
        if (!gate.forMs) {
          const data = await instantQuery(options, gate.query, at);
          return { steps: [{ at, samples: samplesAt(data) }] };
        }
        const step = stepSeconds(gate.forMs);
        const span = Math.max(step, Math.round(gate.forMs / 1000));
        const data = await instantQuery(options, `(${gate.query})[${span}s:${step}s]`, at);
        return { steps: stepsOf(data, at, span, step) };
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        throw new Error(`Prometheus at ${options.url}: ${why}`, { cause: error });
      }
    },
  };
}

function samplesAt(data: QueryData): QuerySample[] {
  switch (data.resultType) {
    case 'scalar':
      return [{ labels: {}, value: sampleValue(data.result[1]) }];
    case 'vector':
      return data.result.map((s) => ({ labels: s.metric, value: sampleValue(s.value[1]) }));
    case 'matrix':
      throw new Error('the query returns a range vector; a gate needs an instant vector');
  }
}

/**
 * The answer at each aligned step in (at − span, at], oldest first. Only steps inside the span are
 * judged: whichever way Prometheus rounds the span's start, these are steps it evaluated.
 */
export function stepsOf(
  data: QueryData,
  at: Date,
  spanSeconds: number,
  stepSec: number,
): QueryStep[] {
  if (data.resultType !== 'matrix') throw new Error(`the subquery answered a ${data.resultType}`);
  const stepMs = stepSec * 1000;
  const end = Math.floor(at.getTime() / stepMs) * stepMs;
  const start = at.getTime() - spanSeconds * 1000;
  const byTime = new Map<number, QuerySample[]>();
  for (let t = end; t > start; t -= stepMs) byTime.set(t, []);
  for (const series of data.result) {
    for (const [time, value] of series.values) {
      byTime
        .get(Math.round(time * 1000))
        ?.push({ labels: series.metric, value: sampleValue(value) });
    }
  }
  return [...byTime]
    .sort(([a], [b]) => a - b)
    .map(([t, samples]) => ({ at: new Date(t), samples }));
}
