/**
 * The gate across clusters (issue 22, ADR 0027): whether an approved request in one cluster may
 * start, given what the other clusters' own requests say. Two rules, each returning a reason:
 *
 * - **Order.** Clusters go in waves (`blockers.clusters.order`). A request in a later wave waits
 *   while a cluster of an earlier wave has unfinished maintenance (a request proposed, approved,
 *   running or verifying), finished less than `soak` ago, has a node whose latest request failed
 *   (the wave stops there: a bad kernel stays in staging), or cannot be read — an earlier cluster
 *   whose state is unknown blocks, as every gate whose facts are missing does (fail closed).
 * - **At most N at once.** A cluster is in maintenance while a request of it runs or verifies (or
 *   this control plane started one there moments ago and the read does not show it yet). One that
 *   cannot be read is counted as in maintenance: its nodes may be down mid-reboot.
 *
 * Pure: the caller reads the other clusters, passes `now` and a way to write times.
 */
import { formatDuration } from './duration.js';
import { isActive, type MaintenanceRequest } from './request.js';

export interface ClusterPolicy {
  /** At most this many clusters in maintenance at once; undefined: no limit. */
  maxInMaintenance?: number;
  /** Waves of cluster names, earliest first; a cluster in none is not ordered. */
  order: readonly (readonly string[])[];
  /** After an earlier wave's cluster finished, a later one waits this long. */
  soakMs: number;
}

/** What the gate needs of a request: its node, state and when it ended. */
export type PeerRequest = Pick<
  MaintenanceRequest,
  'id' | 'node' | 'action' | 'state' | 'createdAt' | 'updatedAt' | 'history' | 'failure'
>;

/** Another cluster, as one read of its requests showed it, or why it could not be read. */
export type PeerState = { name: string } & (
  { requests: readonly PeerRequest[] } | { error: string }
);

export interface ClusterGateFacts {
  /** The cluster whose request is judged. */
  self: string;
  policy: ClusterPolicy;
  /** The other clusters the policy is about (`clustersToRead`), as read this pass. */
  peers: readonly PeerState[];
  /** The judged cluster already has a request running or verifying. */
  selfInMaintenance: boolean;
  /** Clusters this control plane started a request in moments ago (their read may predate it). */
  claimed: readonly string[];
}

/** The clusters in waves before `self`'s; none when `self` is in the first wave or in none. */
export function earlierClusters(order: ClusterPolicy['order'], self: string): string[] {
  const wave = order.findIndex((names) => names.includes(self));
  return wave <= 0 ? [] : order.slice(0, wave).flat();
}

/** Which other clusters a pass must read to judge `self`: the earlier ones, or all for the cap. */
export function clustersToRead(
  policy: ClusterPolicy,
  self: string,
  all: readonly string[],
): string[] {
  if (policy.maxInMaintenance !== undefined) return all.filter((name) => name !== self);
  return earlierClusters(policy.order, self);
}

/** Every reason the cluster gate holds `self`'s request back; empty when it may start. */
export function clusterReasons(
  facts: ClusterGateFacts,
  now: Date,
  describe: (at: Date) => string,
): string[] {
  return [...orderReasons(facts, now, describe), ...capReasons(facts)];
}

function orderReasons(facts: ClusterGateFacts, now: Date, describe: (at: Date) => string) {
  const { self, policy } = facts;
  const reasons: string[] = [];
  for (const name of earlierClusters(policy.order, self)) {
    const before = `cluster ${name} goes before ${self} (blockers.clusters.order)`;
    const peer = facts.peers.find((p) => p.name === name);
    if (!peer || 'error' in peer) {
      const why = peer && 'error' in peer ? peer.error : 'it was not read';
      reasons.push(`${before} and cannot be read (${why}); ${self} waits until it can`);
      continue;
    }
    const summary = summarize(peer.requests);
    // Which requests, and in which state, is left to `status`: kept in the reason, each step of
    // the earlier cluster would rewrite (and announce) every request waiting in the later ones.
    if (summary.unfinished.length > 0)
      reasons.push(`${before} and has unfinished maintenance (kubemaint status --cluster ${name})`);
    for (const failed of summary.failed)
      reasons.push(
        `${before} and request ${failed.id} on ${failed.node} failed${failed.failure ? ` (${failed.failure})` : ''}: the order stops until ${failed.node}'s next request there is done`,
      );
    const doneAt = summary.lastDoneAt;
    if (policy.soakMs > 0 && doneAt && now.getTime() < doneAt.getTime() + policy.soakMs) {
      const until = new Date(doneAt.getTime() + policy.soakMs);
      reasons.push(
        `soaking ${formatDuration(policy.soakMs)} after cluster ${name} finished (${describe(doneAt)}); ${self} may start ${describe(until)}`,
      );
    }
  }
  return reasons;
}

function capReasons({ self, policy, peers, selfInMaintenance, claimed }: ClusterGateFacts) {
  const max = policy.maxInMaintenance;
  // A cluster already in maintenance adds nobody to the count by starting one more node.
  if (max === undefined || selfInMaintenance || claimed.includes(self)) return [];
  const busy = peers
    .filter((peer) => peer.name !== self)
    .flatMap((peer) => {
      if ('error' in peer) return [`${peer.name} (cannot be read: counted as in maintenance)`];
      const inFlight = peer.requests.some((r) => IN_FLIGHT.has(r.state));
      return inFlight || claimed.includes(peer.name) ? [peer.name] : [];
    });
  if (busy.length < max) return [];
  const noun = busy.length === 1 ? 'cluster is' : 'clusters are';
  return [
    `${busy.length} other ${noun} in maintenance (${busy.join(', ')}); at most ${max} at once (blockers.clusters.maxInMaintenance)`,
  ];
}

const IN_FLIGHT = new Set(['running', 'verifying']);

interface Summary {
  unfinished: PeerRequest[];
  /** Each node's latest request, where that one failed. */
  failed: PeerRequest[];
  lastDoneAt?: Date;
}

/** What one cluster's requests say about its maintenance. */
export function summarize(requests: readonly PeerRequest[]): Summary {
  const latest = new Map<string, PeerRequest>();
  let lastDoneAt: Date | undefined;
  for (const request of requests) {
    const seen = latest.get(request.node);
    if (!seen || request.createdAt > seen.createdAt) latest.set(request.node, request);
    if (request.state !== 'done') continue;
    const at = new Date(endedAt(request));
    if (!lastDoneAt || at > lastDoneAt) lastDoneAt = at;
  }
  const byNode = (a: PeerRequest, b: PeerRequest) => a.node.localeCompare(b.node, 'en');
  return {
    unfinished: requests.filter((r) => isActive(r.state)).sort(byNode),
    failed: [...latest.values()].filter((r) => r.state === 'failed').sort(byNode),
    ...(lastDoneAt ? { lastDoneAt } : {}),
  };
}

/** When a request ended: its last transition, else its last change. */
const endedAt = (request: PeerRequest): string => request.history.at(-1)?.at ?? request.updatedAt;
