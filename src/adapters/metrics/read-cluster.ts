/**
 * Reads what the gauges show, for a caller that has no tick result at hand (`serve` after each tick,
 * or before a scrape): nodes with any request (each node's latest, final states included, so
 * `kubemaint_requests{state="failed"}` counts), nodes carrying the reboot mark, and the slots. The
 * requests are listed, not the fleet: idle nodes of a large fleet are never read.
 */
import type { ClusterPort, NodeView } from '../../app/control/ports.js';
import { observeCluster, type ObserveOptions } from './observe.js';
import type { Metrics } from './registry.js';

export async function observeFromCluster(
  metrics: Metrics,
  cluster: Pick<ClusterPort, 'listNodes' | 'listRequestNodes' | 'listSlots'>,
  options: ObserveOptions & { rebootLabel: string },
): Promise<void> {
  const [withRequest, marked, slots] = await Promise.all([
    cluster.listRequestNodes('all'),
    cluster.listNodes(options.rebootLabel),
    cluster.listSlots(),
  ]);
  const byName = new Map<string, NodeView>();
  for (const node of [...withRequest, ...marked]) byName.set(node.name, node);
  observeCluster(metrics, [...byName.values()], slots, options);
}
