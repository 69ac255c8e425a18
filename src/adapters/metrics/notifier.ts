/**
 * A Notifier that turns reports into duration and outcome metrics on serve's registry
 * (samples.ts `eventSamples`: the same samples the Lambda functions write as EMF). Each request's
 * report of each kind is observed once, even if reported twice.
 */
import type { Notifier } from '../../app/control/ports.js';
import type { Metrics } from './registry.js';
import { eventSamples, onceEach } from './samples.js';
import { withCluster } from './cluster-label.js';

/** `cluster`: label every sample with the event's cluster (the config lists several). */
export function metricsNotifier(metrics: Metrics, options: { cluster?: boolean } = {}): Notifier {
  const firstTime = onceEach();
  return {
    notify(event, request) {
      try {
        if (!firstTime(event)) return Promise.resolve();
        const samples = eventSamples(event, request);
        metrics.record(options.cluster ? withCluster(samples, event.cluster) : samples);
      } catch {
        // A Notifier never throws (ports.ts): a metric is not worth failing a report for.
      }
      return Promise.resolve();
    },
  };
}
