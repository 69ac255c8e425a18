/**
 * The Lambda functions' Notifier for metrics: each report's durations and outcome (samples.ts
 * `eventSamples`, as serve's registry gets them) written at once as EMF lines, with the event's
 * cluster as a dimension. Written as it happens: a Lambda is frozen once it returns, and stdout
 * is where CloudWatch Logs reads them.
 */
import type { Notifier } from '../../app/control/ports.js';
import { emfLines } from './emf.js';
import { eventSamples, onceEach } from './samples.js';

export function emfNotifier(options: { write: (line: string) => void; now: () => Date }): Notifier {
  const firstTime = onceEach();
  return {
    notify(event, request) {
      try {
        if (!firstTime(event)) return Promise.resolve();
        const samples = eventSamples(event, request);
        const at = options.now();
        for (const line of emfLines(samples, { at, dimensions: { cluster: event.cluster } }))
          options.write(line);
      } catch {
        // A Notifier never throws (ports.ts): a metric is not worth failing a report for.
      }
      return Promise.resolve();
    },
  };
}
