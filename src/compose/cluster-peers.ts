/**
 * The cross-cluster gate's port (app/control/cluster-gate.ts) over the clusters of one control
 * plane: each read goes through that cluster's own ClusterPort (its own connection, list of
 * requests only) with a time limit, so a slow cluster costs a pass at most `readTimeoutMs` and is
 * then a reason, not a wait; claims are kept in this process, where every cluster's loop runs.
 */
import type { ClusterPeersPort } from '../app/control/cluster-gate.js';
import type { ClusterPort } from '../app/control/ports.js';
import type { ClusterPolicy, PeerState } from '../core/cluster-policy.js';
import type { ClusterGateConfig } from '../config/schema.js';
import { within } from '../app/control/within.js';

/**
 * A claim lasts this long: past it, the claimed cluster's own read shows the request running
 * (the next pass reads it again), so counting it twice meanwhile costs nothing.
 */
const CLAIM_MS = 60_000;

/** A cluster that has not answered the gate's read by then is taken as unreadable. */
const READ_TIMEOUT_MS = 10_000;

export interface PeerClusters {
  port: ClusterPeersPort;
  /** Hand the gate a cluster's port once it is open (the set opens them one by one). */
  add(name: string, cluster: Pick<ClusterPort, 'listRequests'>): void;
}

export function clusterPeers(options: {
  gate: ClusterGateConfig;
  names: readonly string[];
  readTimeoutMs?: number;
}): PeerClusters {
  const clusters = new Map<string, Pick<ClusterPort, 'listRequests'>>();
  const claims = new Map<string, number[]>();
  const timeout = options.readTimeoutMs ?? READ_TIMEOUT_MS;
  const policy = policyOf(options.gate);
  const readOne = async (name: string): Promise<PeerState> => {
    const cluster = clusters.get(name);
    if (!cluster) return { name, error: 'not opened' };
    try {
      // Strict: an object left out of the read could be the failure that stops the order.
      return { name, requests: await within(timeout, cluster.listRequests({ strict: true })) };
    } catch (error) {
      return { name, error: error instanceof Error ? error.message : String(error) };
    }
  };
  const live = (name: string, now: number): number[] =>
    (claims.get(name) ?? []).filter((at) => now - at < CLAIM_MS);
  return {
    add: (name, cluster) => void clusters.set(name, cluster),
    port: {
      policy,
      names: options.names,
      read: (names) => Promise.all(names.map(readOne)),
      claimed: (now) => options.names.filter((name) => live(name, now.getTime()).length > 0),
      claim(name, now) {
        const at = now.getTime();
        claims.set(name, [...live(name, at), at]);
        return () => {
          const left = claims.get(name) ?? [];
          const i = left.indexOf(at);
          if (i >= 0) left.splice(i, 1);
        };
      },
    },
  };
}

/**
 * The gate's port for one cluster of `clusters:` opened alone (`serve --cluster prod-eu`): it reads
 * no other cluster, so without it the gate would be skipped and the order, soak and cap ignored.
 * It says so instead, on every start the policy is about (fail closed).
 */
export function lonePeers(gate: ClusterGateConfig, self: string): ClusterPeersPort {
  return {
    policy: policyOf(gate),
    names: [self],
    read: () => Promise.resolve([]),
    claimed: () => [],
    claim: () => () => undefined,
    alone: `blockers.clusters judges ${self} from the other clusters, and this control plane works ${self} alone (--cluster ${self}): work every cluster of clusters: in one serve (no --cluster)`,
  };
}

/** `blockers.clusters` as the pure gate reads it. */
export const policyOf = (gate: ClusterGateConfig): ClusterPolicy => ({
  order: gate.order,
  soakMs: gate.soak,
  ...(gate.maxInMaintenance !== undefined ? { maxInMaintenance: gate.maxInMaintenance } : {}),
});
