/**
 * The AlertsPort over Prometheus, with kured's semantics (`--prometheus-url`, `--alert-filter-regexp`,
 * `--alert-filter-match-only`, `--alert-firing-only`): the instant query `ALERTS`, every sample with a
 * value other than 0 counts, the filter excludes matching alert names (or, match-only, keeps only
 * them), firing-only ignores pending alerts, and with severities only alerts of those severities
 * count (the cluster-health gate's "no firing critical alert"). Any failure to get an answer THROWS: the control plane
 * treats a throw as a blocker (fails closed), so an unreachable Prometheus never lets a reboot through.
 */
import { KubemaintError } from '../../errors.js';
import type { AlertsPort } from '../../app/control/ports.js';
import { instantQuery, queryUrl, type PrometheusHttpOptions } from './http.js';

export interface PrometheusAlertsOptions extends PrometheusHttpOptions {
  alertFilter?: RegExp;
  /** Only alerts matching `alertFilter` block (kured's `--alert-filter-match-only`). */
  matchOnly: boolean;
  /** Pending alerts do not block (kured's `--alert-firing-only`). */
  firingOnly: boolean;
  /** Only alerts whose `severity` label is one of these block; empty or absent: every alert. */
  severities?: readonly string[];
}

/** One sample of the `ALERTS` series as Prometheus returns it in an instant-vector result. */
export interface AlertSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** Names of the alerts that block, sorted and without repeats. Pure: the filter rules only. */
export function blockingAlerts(
  samples: readonly AlertSample[],
  options: Pick<PrometheusAlertsOptions, 'alertFilter' | 'matchOnly' | 'firingOnly' | 'severities'>,
): string[] {
  const names = new Set<string>();
  const severities = options.severities ?? [];
  for (const sample of samples) {
    const name = sample.metric.alertname ?? '';
    if (Number(sample.value[1]) === 0) continue;
    if (options.firingOnly && sample.metric.alertstate !== 'firing') continue;
    if (severities.length > 0 && !severities.includes(sample.metric.severity ?? '')) continue;
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
  const endpoint = queryUrl(options.url, 'ALERTS');
  return {
    async activeAlerts() {
      try {
        const data = await instantQuery(options, 'ALERTS');
        if (data.resultType !== 'vector')
          throw new Error(`the answer is a ${data.resultType}, not an instant vector`);
        return blockingAlerts(data.result, options);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        throw new KubemaintError(
          'unexpected',
          `Prometheus alerts unavailable (${endpoint}): ${why}`,
          {
            hint: 'check blockers.prometheus.url and that Prometheus answers; maintenance waits until it does',
            cause: error,
          },
        );
      }
    },
  };
}
