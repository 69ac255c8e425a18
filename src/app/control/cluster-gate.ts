/**
 * The cross-cluster gate in a dispatch (ADR 0027): the other clusters' requests are read once per
 * pass (only when something here is approved, and only the clusters the policy is about), each
 * through that cluster's own connection and read-only; a cluster that does not answer in time is
 * a reason, never a wait for the others. A request the gate lets through is claimed at once,
 * before anything is awaited, so two clusters' loops in this process cannot both take the last
 * place of `maxInMaintenance` between one's read and the other's write.
 */
import {
  clusterReasons,
  clustersToRead,
  earlierClusters,
  type ClusterPolicy,
  type PeerState,
} from '../../core/cluster-policy.js';
import { describeTime } from '../../core/policy.js';
import type { MaintenanceRequest } from '../../core/request.js';

/** The clusters of this control plane, as the gate sees them; implemented in src/compose. */
export interface ClusterPeersPort {
  policy: ClusterPolicy;
  /** Every cluster's name, in the config's order. */
  names: readonly string[];
  /** The named clusters' requests, each read now within a time limit, or why not. Never throws. */
  read(names: readonly string[]): Promise<PeerState[]>;
  /** Clusters a start was claimed in recently (this process), whatever their reads said. */
  claimed(now: Date): string[];
  /** Claim a start in `cluster`; call the answer to give the claim back when nothing started. */
  claim(cluster: string, now: Date): () => void;
  /**
   * Why no other cluster is read at all: one cluster of `clusters:` opened alone (`serve
   * --cluster`, `tick --cluster`). The gate then holds every start it would have judged.
   */
  alone?: string;
}

export interface ClusterGateDeps {
  peers?: ClusterPeersPort;
  settings: { cluster: string; timeZone: string };
}

/** One pass's read of the other clusters; undefined when there is no cross-cluster policy. */
export async function readPeers(deps: ClusterGateDeps): Promise<PeerState[] | undefined> {
  const { peers, settings } = deps;
  if (!peers) return undefined;
  if (peers.alone !== undefined) return [];
  return peers.read(clustersToRead(peers.policy, settings.cluster, peers.names));
}

/** Why the gate holds a request back now (empty: it may start), judged at this instant. */
export function clusterGateReasons(
  deps: ClusterGateDeps,
  read: readonly PeerState[] | undefined,
  inFlight: readonly MaintenanceRequest[],
  now: Date,
): string[] {
  const { peers, settings } = deps;
  if (!peers || !read) return [];
  // Fail closed: a start the policy is about (an earlier wave, or a cap) cannot be judged alone.
  if (peers.alone !== undefined)
    return peers.policy.maxInMaintenance !== undefined ||
      earlierClusters(peers.policy.order, settings.cluster).length > 0
      ? [peers.alone]
      : [];
  return clusterReasons(
    {
      self: settings.cluster,
      policy: peers.policy,
      peers: read,
      selfInMaintenance: inFlight.length > 0,
      claimed: peers.claimed(now),
    },
    now,
    (at) => describeTime(at, now, settings.timeZone),
  );
}
