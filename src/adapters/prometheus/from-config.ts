/**
 * Maps `blockers.prometheus` of the config onto the AlertsPort. No section, no port: the tick then
 * skips the alert gate entirely (as kured does without `--prometheus-url`).
 */
import type { AlertsPort } from '../../app/control/ports.js';
import type { Config } from '../../config/schema.js';
import { prometheusAlerts } from './alerts.js';

export function prometheusAlertsFromConfig(
  section: Config['blockers']['prometheus'],
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): AlertsPort | undefined {
  if (!section) return undefined;
  return prometheusAlerts({
    url: section.url,
    // The schema already proved the source compiles.
    ...(section.alertFilter === undefined ? {} : { alertFilter: new RegExp(section.alertFilter) }),
    matchOnly: section.alertFilterMatchOnly,
    firingOnly: section.firingOnly,
    ...options,
  });
}
