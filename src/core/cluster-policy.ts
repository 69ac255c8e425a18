/**
 * The gate across clusters (issue 22, ADR 0027): whether an approved request in one cluster may
 * start, given what the other clusters' own requests say. Two rules, each returning a reason:
 *
 * - **Order.** Clusters go in waves (`blockers.clusters.order`). A request in a later wave waits
 *   while a cluster of an earlier wave has unfinished maintenance (a request proposed, approved,
 *   running or verifying), finished less than `soak` ago, has a node whose latest request failed
 *   (the wave stops there: a bad kernel stays in staging, until a later request on that node is
 *   done: a rejected, expired or cancelled one proves nothing), or cannot be read — an earlier
 *   cluster whose state is unknown blocks, as every gate whose facts are missing does (fail
 *   closed). So does a request of it whose times are not times: the order and the soak are judged
 *   from them, and a time that is not one would let every comparison pass.
 * - **At most N at once.** A cluster is in maintenance while a request of it runs or verifies (or
 *   this control plane started one there moments ago and the read does not show it yet). One that
 *   cannot be read is counted as in maintenance: its nodes may be down mid-reboot.
 *
 * What it trusts: a peer cluster's requests are read with this control plane's credentials for
 * that cluster, so they are only as strong as that cluster's weakest writer of request status
 * (its control plane, its administrators) or deleter of requests. Whoever can write them there
 * can hold the later waves back, or let them go; see SECURITY.md.
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
    if (summary.unreadable.length > 0) {
      reasons.push(
        `${before} and has requests the gate cannot judge (${summary.unreadable.join('; ')}); ${self} waits until they are fixed or deleted there`,
      );
      continue;
    }
    // Which requests, and in which state, is left to `status`: kept in the reason, each step of
    // the earlier cluster would rewrite (and announce) every request waiting in the later ones.
    if (summary.unfinished.length > 0)
      reasons.push(`${before} and has unfinished maintenance (kubemaint status --cluster ${name})`);
    for (const failed of summary.failed)
      reasons.push(
        `${before} and request ${failed.id} on ${failed.node} failed${failed.failure ? ` (${failed.failure})` : ''}: the order stops until ${failed.node}'s next request there is done (a node gone for good never has one: delete ${failed.id} there)`,
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
  /** Each node's latest failed request, where no request created after it is done. */
  failed: PeerRequest[];
  lastDoneAt?: Date;
  /** Requests whose times are not times, each with why: nothing about the cluster is judged. */
  unreadable: string[];
}

/** What one cluster's requests say about its maintenance. */
export function summarize(requests: readonly PeerRequest[]): Summary {
  const unreadable: string[] = [];
  const lastFailed = new Map<string, { request: PeerRequest; created: number }>();
  const lastDone = new Map<string, number>();
  let lastDoneAt: number | undefined;
  for (const request of requests) {
    const created = timeOf(request.createdAt);
    const ended = timeOf(endedAt(request));
    if (created === undefined || ended === undefined) {
      const [field, value] =
        created === undefined ? ['createdAt', request.createdAt] : ['end', endedAt(request)];
      unreadable.push(`${request.id}: its ${field} ${JSON.stringify(value)} is not a time`);
      continue;
    }
    if (request.state === 'failed') {
      const seen = lastFailed.get(request.node);
      if (!seen || created > seen.created) lastFailed.set(request.node, { request, created });
    }
    if (request.state !== 'done') continue;
    lastDone.set(request.node, Math.max(created, lastDone.get(request.node) ?? -Infinity));
    lastDoneAt = Math.max(ended, lastDoneAt ?? -Infinity);
  }
  // Only a done request clears a failure: a later one rejected, expired, cancelled or skipped
  // (anyone who may propose there can make one) says nothing about whether the node is fine.
  const failed = [...lastFailed.values()]
    .filter(({ request, created }) => (lastDone.get(request.node) ?? -Infinity) <= created)
    .map(({ request }) => request);
  const byNode = (a: PeerRequest, b: PeerRequest) => a.node.localeCompare(b.node, 'en');
  return {
    unfinished: requests.filter((r) => isActive(r.state)).sort(byNode),
    failed: failed.sort(byNode),
    ...(lastDoneAt !== undefined ? { lastDoneAt: new Date(lastDoneAt) } : {}),
    unreadable,
  };
}

/** When a request ended: its last transition, else its last change (as stored: maybe not text). */
const endedAt = (request: PeerRequest): unknown => request.history.at(-1)?.at ?? request.updatedAt;

/** Milliseconds of an ISO time; undefined for anything else (a peer's object is not trusted). */
function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
