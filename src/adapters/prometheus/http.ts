/**
 * Prometheus' instant-query HTTP API (`/api/v1/query`), shared by the alerts gate and the query
 * gates. Any failure to get a well-formed answer throws with what went wrong (unreachable, timeout,
 * HTTP status, Prometheus' own error, a body that is not the API's shape): the callers turn a throw
 * into a blocking reason, so an unreachable Prometheus never lets a reboot through.
 */

export interface PrometheusHttpOptions {
  /** Base URL of Prometheus (a path prefix such as `/prometheus` is kept). */
  url: string;
  /** Injectable for tests. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default 10_000 */
  timeoutMs?: number;
}

/** `data` of a successful answer: an instant vector, a range vector (subqueries) or a scalar. */
export type QueryData =
  | { resultType: 'vector'; result: { metric: Record<string, string>; value: [number, string] }[] }
  | {
      resultType: 'matrix';
      result: { metric: Record<string, string>; values: [number, string][] }[];
    }
  | { resultType: 'scalar'; result: [number, string] };

export class PrometheusError extends Error {
  override readonly cause: unknown;
  constructor(message: string, cause?: unknown) {
    super(message);
    this.cause = cause;
  }
}

/** The URL a query goes to (no `time`: Prometheus' now). */
export const queryUrl = (base: string, promql: string, at?: Date): string =>
  `${base.replace(/\/+$/, '')}/api/v1/query?query=${encodeURIComponent(promql)}${
    at ? `&time=${at.getTime() / 1000}` : ''
  }`;

/** Run one instant query; resolves with the answer's `data`, throws PrometheusError otherwise. */
export async function instantQuery(
  options: PrometheusHttpOptions,
  promql: string,
  at?: Date,
): Promise<QueryData> {
  const doFetch = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(queryUrl(options.url, promql, at), {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    throw new PrometheusError(error instanceof Error ? error.message : String(error), error);
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    if (!response.ok) throw new PrometheusError(`HTTP ${response.status}: ${text.slice(0, 200)}`);
    throw new PrometheusError(`the answer is not JSON: ${text.slice(0, 200)}`, error);
  }
  const answer = body as { status?: unknown; error?: unknown; errorType?: unknown; data?: unknown };
  if (answer.status === 'error') {
    throw new PrometheusError(
      `query failed (${String(answer.errorType)}): ${String(answer.error)}`,
    );
  }
  if (!response.ok) throw new PrometheusError(`HTTP ${response.status}`);
  return dataOf(answer);
}

function dataOf(answer: { status?: unknown; data?: unknown }): QueryData {
  const data = answer.data as { resultType?: unknown; result?: unknown } | undefined;
  if (answer.status !== 'success' || !data || !Array.isArray(data.result)) {
    throw new PrometheusError('the answer is not {"status":"success","data":{"result":[…]}}');
  }
  if (data.resultType === 'scalar') {
    if (!isPoint(data.result)) throw new PrometheusError('the scalar is not [time, "value"]');
    return { resultType: 'scalar', result: data.result };
  }
  if (data.resultType !== 'vector' && data.resultType !== 'matrix') {
    throw new PrometheusError(
      `the answer is a ${String(data.resultType)}, not an instant vector: give the query a vector`,
    );
  }
  data.result.forEach((raw, i) => {
    const series = raw as { metric?: unknown; value?: unknown; values?: unknown } | null;
    const labelsOk = typeof series?.metric === 'object' && series.metric !== null;
    const pointsOk =
      data.resultType === 'vector'
        ? isPoint(series?.value)
        : Array.isArray(series?.values) && series.values.every(isPoint);
    if (!labelsOk || !pointsOk)
      throw new PrometheusError(`result[${i}] is not a sample with metric and value`);
  });
  return data as QueryData;
}

const isPoint = (value: unknown): value is [number, string] =>
  Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string';

/** A sample's value as Prometheus writes it (`"0.5"`, `"+Inf"`, `"NaN"`). */
export function sampleValue(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}
