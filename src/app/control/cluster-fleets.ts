/**
 * The fleet across clusters (issue 22): one FleetView per cluster, each read through that cluster's
 * own deps and at the same time, so a cluster that does not answer costs `timeoutMs` at most and is
 * shown as unreachable with why, beside the others' views. `kubemaint status`, serve's status page
 * and its metrics group by the `cluster` of these.
 */
import {
  readFleetView,
  type FleetDeps,
  type FleetReadOptions,
  type FleetView,
} from './fleet-view.js';
import { within } from './within.js';

/** One cluster's part of a view across clusters. */
export type ClusterFleet = { cluster: string } & ({ view: FleetView } | { unreachable: string });

/** A cluster whose read has not answered by then is shown as unreachable. */
export const FLEET_READ_TIMEOUT_MS = 15_000;

export async function readClusterFleets(
  clusters: readonly { name: string; deps: FleetDeps }[],
  options: FleetReadOptions & { timeoutMs?: number } = {},
): Promise<ClusterFleet[]> {
  const { timeoutMs = FLEET_READ_TIMEOUT_MS, ...read } = options;
  return Promise.all(
    clusters.map(async ({ name, deps }): Promise<ClusterFleet> => {
      try {
        return { cluster: name, view: await within(timeoutMs, readFleetView(deps, read)) };
      } catch (error) {
        return {
          cluster: name,
          unreachable: error instanceof Error ? error.message : String(error),
        };
      }
    }),
  );
}
