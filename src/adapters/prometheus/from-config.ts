/**
 * Maps `blockers.prometheus` of the config onto the AlertsPort and the QueryPort. No section, no
 * ports: the tick then skips those gates entirely (as kured does without `--prometheus-url`);
 * `alerts: false` keeps only the query gates.
 */
import type { AlertsPort, QueryPort } from '../../app/control/ports.js';
import type { Config } from '../../config/schema.js';
import { prometheusAlerts } from './alerts.js';
import { prometheusQueries } from './query-gates.js';

type Section = Config['blockers']['prometheus'];
type Options = { fetch?: typeof fetch; timeoutMs?: number };

export function prometheusAlertsFromConfig(
  section: Section,
  options: Options = {},
): AlertsPort | undefined {
  if (!section || section.alerts === false) return undefined;
  return prometheusAlerts({
    url: section.url,
    // The schema already proved the source compiles.
    ...(section.alertFilter === undefined ? {} : { alertFilter: new RegExp(section.alertFilter) }),
    matchOnly: section.alertFilterMatchOnly,
    firingOnly: section.firingOnly,
    severities: section.alertSeverities ?? [],
    ...options,
  });
}

/** The port for `blockers.prometheus.queries`; none when no query is configured. */
export function prometheusQueriesFromConfig(
  section: Section,
  options: Options = {},
): QueryPort | undefined {
  if (!section || (section.queries ?? []).length === 0) return undefined;
  return prometheusQueries({ url: section.url, ...options });
}
