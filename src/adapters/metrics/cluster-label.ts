/**
 * The `cluster` label (issue 22): every prom-client metric may carry it; serve sets it when the
 * config lists several clusters, so each series says whose it is. The Lambda functions' EMF lines
 * carry the cluster as a dimension already (tick-metrics.ts).
 */
import type { Sample } from './catalog.js';

export const CLUSTER_LABEL = 'cluster';

export const withCluster = (samples: readonly Sample[], cluster: string): Sample[] =>
  samples.map((sample) => ({ ...sample, labels: { ...sample.labels, [CLUSTER_LABEL]: cluster } }));
