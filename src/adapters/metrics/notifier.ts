/**
 * A Notifier that turns reports into duration and outcome metrics on serve's registry
 * (samples.ts `eventSamples`: the same samples the Lambda functions write as EMF). Each request's
 * report of each kind is observed once, even if reported twice.
 */
import type { Notifier } from '../../app/control/ports.js';
import type { Metrics } from './registry.js';
import { eventSamples, onceEach } from './samples.js';

export function metricsNotifier(metrics: Metrics): Notifier {
  const firstTime = onceEach();
  return {
    notify(event, request) {
      try {
        if (firstTime(event)) metrics.record(eventSamples(event, request));
      } catch {
        // A Notifier never throws (ports.ts): a metric is not worth failing a report for.
      }
      return Promise.resolve();
    },
  };
}
