/**
 * Health gates on any Prometheus query (`blockers.prometheus.queries`): what a query's answer must
 * look like for maintenance to go on (`empty`, `nonEmpty`, `below:N`, `above:N`), optionally for a
 * while (`for`). A gate with `for` is judged on the query's answer at every step of that span, as
 * Prometheus itself recorded it, so kubemaint keeps no history of its own. `below` and `above` need
 * a value: an answer with none blocks (fail closed: "no error rate" is not "a low error rate").
 * Pure: the adapter runs the query, this decides and says why in words people can act on.
 */
import { formatDuration } from './duration.js';

export type Expectation =
  | { kind: 'empty' }
  | { kind: 'nonEmpty' }
  | { kind: 'below'; value: number }
  | { kind: 'above'; value: number };

export interface QueryGate {
  /** Shown in messages instead of the query when given. */
  name?: string;
  /** PromQL returning an instant vector. */
  query: string;
  expect: Expectation;
  /** The expectation must have held this long (judged on Prometheus' own history). */
  forMs?: number;
}

/** One series of an instant vector: its labels (`__name__` included when it has one) and value. */
export interface QuerySample {
  labels: Record<string, string>;
  value: number;
}

/** The query's answer at one evaluation time. */
export interface QueryStep {
  at: Date;
  samples: readonly QuerySample[];
}

/** `below:0.02` and friends, as written in the config; undefined when it is none of them. */
export function parseExpectation(text: string): Expectation | undefined {
  const trimmed = text.trim();
  if (trimmed === 'empty' || trimmed === 'nonEmpty') return { kind: trimmed };
  const match = /^(below|above)\s*:\s*(\S+)$/.exec(trimmed);
  if (!match) return undefined;
  const value = Number(match[2]);
  if (match[2] === '' || !Number.isFinite(value)) return undefined;
  return { kind: match[1] as 'below' | 'above', value };
}

export function formatExpectation(expect: Expectation): string {
  switch (expect.kind) {
    case 'empty':
      return 'empty';
    case 'nonEmpty':
      return 'nonEmpty';
    case 'below':
    case 'above':
      return `${expect.kind}:${expect.value}`;
  }
}

/** What the gate wants, in words: `no series`, `a value below 0.02 for 5m`. */
function wanted(gate: QueryGate): string {
  const base =
    gate.expect.kind === 'empty'
      ? 'no series'
      : gate.expect.kind === 'nonEmpty'
        ? 'at least one series'
        : `every value ${gate.expect.kind} ${gate.expect.value}`;
  return gate.forMs ? `${base} for ${formatDuration(gate.forMs)}` : base;
}

/** Whether one step's answer meets the expectation. */
export function meets(expect: Expectation, samples: readonly QuerySample[]): boolean {
  switch (expect.kind) {
    case 'empty':
      return samples.length === 0;
    case 'nonEmpty':
      return samples.length > 0;
    case 'below':
      return samples.length > 0 && samples.every((s) => s.value < expect.value);
    case 'above':
      return samples.length > 0 && samples.every((s) => s.value > expect.value);
  }
}

/** How the gate is named in messages: its name and its query, so people can run it themselves. */
export function describeGate(gate: QueryGate): string {
  return gate.name ? `${gate.name} (${gate.query})` : gate.query;
}

/**
 * Why the gate blocks, or undefined when it passes. `steps` is the answer at each evaluation time,
 * oldest first (one step for a gate without `for`); the reason shows the latest step that failed.
 */
export function judgeQuery(gate: QueryGate, steps: readonly QueryStep[]): string | undefined {
  if (steps.length === 0) return `Prometheus gate ${describeGate(gate)} returned no answer`;
  const failed = steps.findLast((step) => !meets(gate.expect, step.samples));
  if (!failed) return undefined;
  const latest = steps[steps.length - 1]!;
  const when = failed === latest ? '' : ` at ${failed.at.toISOString()}`;
  return `Prometheus gate ${describeGate(gate)} returned ${describeSamples(failed.samples)}${when}; expected ${wanted(gate)}`;
}

/** `x{job="api"} 0.07, x{job="web"} 1 and 3 more`, or `nothing`. */
export function describeSamples(samples: readonly QuerySample[], most = 3): string {
  if (samples.length === 0) return 'nothing';
  const shown = samples.slice(0, most).map((s) => {
    const name = seriesName(s.labels);
    return name === '' ? formatValue(s.value) : `${name} ${formatValue(s.value)}`;
  });
  const more = samples.length > most ? ` and ${samples.length - most} more` : '';
  return `${shown.join(', ')}${more}`;
}

function seriesName(labels: Record<string, string>): string {
  const { __name__: name = '', ...rest } = labels;
  const pairs = Object.keys(rest)
    .sort()
    .map((k) => `${k}="${rest[k]}"`);
  // A scalar (or a series without labels) is its value alone.
  return pairs.length > 0 ? `${name}{${pairs.join(',')}}` : name;
}

const formatValue = (value: number): string =>
  Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
