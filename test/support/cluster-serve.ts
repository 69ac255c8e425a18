/**
 * Probes of a serve over several embedded clusters (compose/serve.ts, issue 22), as its
 * integration tests use them: a cluster's deps by name, a kick of every cluster's loop, a node's
 * newest request in one cluster, waiting (kicking) until it is as wanted, and a node's bootID.
 */
import type { RunningServe } from '../../src/compose/serve.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import { R, type Sim } from '@kubemaint/kubesim';
import { waitFor } from './sim.js';

export function clusterProbes(serve: () => RunningServe, sims: ReadonlyMap<string, Sim>) {
  const deps = (cluster: string) => serve().clusters.get(cluster).deps;
  const kick = () => serve().loops.forEach((l) => l.kick());
  const requestOn = async (cluster: string, node: string) =>
    (await deps(cluster).cluster.listRequests())
      .filter((r) => r.node === node)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  /** Kicks every loop until the node's newest request in `cluster` is `ok` (60 s at most). */
  const until = (
    what: string,
    cluster: string,
    node: string,
    ok: (r: MaintenanceRequest) => boolean,
  ) =>
    waitFor(
      what,
      async () => {
        kick();
        const request = await requestOn(cluster, node);
        return request && ok(request) ? request : undefined;
      },
      60_000,
    );
  const bootId = (cluster: string, node: string): string | undefined => {
    const status = sims.get(cluster)?.store.get(R.nodes, undefined, node)?.status as
      { nodeInfo?: { bootID?: string } } | undefined;
    return status?.nodeInfo?.bootID;
  };
  return { deps, kick, requestOn, until, bootId };
}
