/**
 * The AlertsPort over Prometheus, with kured's semantics (`--prometheus-url`, `--alert-filter-regexp`,
 * `--alert-filter-match-only`, `--alert-firing-only`): the instant query `ALERTS`, every sample with a
 * value other than 0 counts, the filter excludes matching alert names (or, match-only, keeps only
 * them), firing-only ignores pending alerts. Any failure to get an answer THROWS: the control plane
 * treats a throw as a blocker (fails closed), so an unreachable Prometheus never lets a reboot through.
 */
import { KubemaintError } from '../../errors.js';
import type { AlertsPort } from '../../app/control/ports.js';

export interface PrometheusAlertsOptions {
  /** Base URL of Prometheus (a path prefix such as `/prometheus` is kept). */
  url: string;
  alertFilter?: RegExp;
  /** Only alerts matching `alertFilter` block (kured's `--alert-filter-match-only`). */
  matchOnly: boolean;
  /** Pending alerts do not block (kured's `--alert-firing-only`). */
  firingOnly: boolean;
  /** Injectable for tests. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default 10_000 */
  timeoutMs?: number;
}

/** One sample of the `ALERTS` series as Prometheus returns it in an instant-vector result. */
export interface AlertSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** Names of the alerts that block, sorted and without repeats. Pure: the filter rules only. */
export function blockingAlerts(
  samples: readonly AlertSample[],
  options: Pick<PrometheusAlertsOptions, 'alertFilter' | 'matchOnly' | 'firingOnly'>,
): string[] {
  const names = new Set<string>();
  for (const sample of samples) {
    const name = sample.metric.alertname ?? '';
    if (Number(sample.value[1]) === 0) continue;
    if (options.firingOnly && sample.metric.alertstate !== 'firing') continue;
    if (options.alertFilter) {
      // A fresh test per sample: a /g or /y filter would otherwise carry lastIndex over.
      const matched = new RegExp(options.alertFilter.source, options.alertFilter.flags).test(name);
      if (options.matchOnly ? !matched : matched) continue;
    }
    names.add(name);
  }
  return [...names].sort();
}

export function prometheusAlerts(options: PrometheusAlertsOptions): AlertsPort {
  const endpoint = `${options.url.replace(/\/+$/, '')}/api/v1/query?query=ALERTS`;
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const fail = (why: string, cause?: unknown) =>
    new KubemaintError('unexpected', `Prometheus alerts unavailable (${endpoint}): ${why}`, {
      hint: 'check blockers.prometheus.url and that Prometheus answers; maintenance waits until it does',
      ...(cause === undefined ? {} : { cause }),
    });

  return {
    async activeAlerts() {
      let response: Response;
      try {
        response = await doFetch(endpoint, {
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw fail(error instanceof Error ? error.message : String(error), error);
      }
      const text = await response.text().catch(() => '');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (error) {
        if (!response.ok) throw fail(`HTTP ${response.status}: ${text.slice(0, 200)}`);
        throw fail(`the answer is not JSON: ${text.slice(0, 200)}`, error);
      }
      const answer = body as {
        status?: unknown;
        error?: unknown;
        errorType?: unknown;
        data?: unknown;
      };
      if (answer.status === 'error') {
        throw fail(`query failed (${String(answer.errorType)}): ${String(answer.error)}`);
      }
      if (!response.ok) throw fail(`HTTP ${response.status}`);
      return blockingAlerts(samplesOf(answer, fail), options);
    },
  };
}

function samplesOf(
  answer: { status?: unknown; data?: unknown },
  fail: (why: string) => Error,
): AlertSample[] {
  const data = answer.data as { resultType?: unknown; result?: unknown } | undefined;
  if (answer.status !== 'success' || data?.resultType !== 'vector' || !Array.isArray(data.result)) {
    throw fail(
      'the answer is not an instant vector ({"status":"success","data":{"resultType":"vector"}})',
    );
  }
  return data.result.map((raw, i) => {
    const sample = raw as Partial<AlertSample> | null;
    if (
      typeof sample?.metric !== 'object' ||
      sample.metric === null ||
      !Array.isArray(sample.value) ||
      typeof sample.value[1] !== 'string'
    ) {
      throw fail(`result[${i}] is not a sample with metric and value`);
    }
    return sample as AlertSample;
  });
}
