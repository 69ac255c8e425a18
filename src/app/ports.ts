/**
 * Ports the app layer uses to reach the cluster and the host: plain views in, plain views out, no SDK
 * types. The kube adapter implements them over the real API (and so over the sim); test/fakes holds
 * in-memory versions that record what happened. Errors: a conditional write that lost its race throws
 * a KubemaintError with code `conflict`; a missing object is `undefined`, not an error.
 */
import type { MaintenanceRequest } from '../core/request.js';
import type { MaintenanceCondition } from '../core/node-conditions.js';

import type { NodeInfo } from '../core/node.js';
import type { DisruptionBudget } from '../core/eviction-lanes.js';

export type { NodeInfo } from '../core/node.js';

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  controller: boolean;
}

/** The facts of one Pod the drain needs: identity, ownership, storage, lifecycle. */
export interface PodInfo {
  namespace: string;
  name: string;
  uid: string;
  nodeName: string;
  phase: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  owners: OwnerRef[];
  hasEmptyDir: boolean;
  /** Set once the pod is terminating. */
  deletionTimestamp?: Date;
}

export interface PodWatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  pod: PodInfo;
}

/** The outcome of one eviction request; refusals are values because the drain reports them. */
export type EvictionResult =
  | { outcome: 'evicting' }
  | { outcome: 'gone' }
  /** 429: a PDB (reason DisruptionBudget) or overload; retry after `retryAfterMs` when given. */
  | { outcome: 'refused'; message: string; pdbBlocked: boolean; retryAfterMs?: number }
  /**
   * No answer, or an outage's (connection refused or reset, a timeout, a 5xx with a reason: an
   * apiserver restarting, etcd away), past the adapter's own retries: nothing was decided, so the
   * drain tries again like a refusal until its deadline, and never counts the pod as evicted.
   */
  | { outcome: 'unavailable'; message: string }
  /** Anything that retrying will not fix (500 several PDBs, 403, 422). */
  | { outcome: 'failed'; message: string };

/** A request as stored, with the resourceVersion its next status write is conditional on. */
export interface StoredRequest {
  request: MaintenanceRequest;
  resourceVersion: string;
}

/** The executor's view of its MaintenanceRequest: read it, write its status (409 → `conflict`). */
export interface RequestsPort {
  get(id: string): Promise<StoredRequest | undefined>;
  writeStatus(request: MaintenanceRequest, resourceVersion: string): Promise<string>;
}

export interface NodesPort {
  getNode(name: string): Promise<NodeInfo | undefined>;
  /**
   * Merge-patch labels and annotations (null deletes a key), conditional on `resourceVersion`:
   * a stale one throws a `conflict` KubemaintError. Returns the node as written.
   */
  writeNodeMeta(
    name: string,
    resourceVersion: string,
    meta: { labels?: Record<string, string | null>; annotations?: Record<string, string | null> },
  ): Promise<NodeInfo>;
  /** Cordon (true) or uncordon (false; sends null so the field is removed, as kubectl does). */
  setUnschedulable(name: string, unschedulable: boolean): Promise<NodeInfo>;
  /**
   * Make the node's maintenance conditions (KEP-5683 types, core/node-conditions.ts) exactly
   * `conditions`: those given are set, the other maintenance types removed, every other condition
   * left as it is (a strategic-merge patch of `nodes/status`, merged by type).
   */
  setMaintenanceConditions(
    name: string,
    conditions: readonly MaintenanceCondition[],
  ): Promise<void>;
}

export interface PodsPort {
  /** Every pod bound to the node (fieldSelector spec.nodeName), paginated, narrowed by `labelSelector`. */
  listPodsOnNode(node: string, labelSelector?: string): Promise<PodInfo[]>;
  evictPod(
    pod: { namespace: string; name: string; uid: string },
    options: { gracePeriodSeconds?: number; dryRun?: boolean },
  ): Promise<EvictionResult>;
  /** DELETE with a UID precondition (a same-name replacement is never deleted); gone is not an error. */
  deletePod(
    pod: { namespace: string; name: string; uid: string },
    options: { gracePeriodSeconds?: number },
  ): Promise<void>;
  /**
   * Watch pods on the node; `handler` gets every change, `onEnd` when the stream ends for any reason
   * (the caller decides whether to resync and re-watch). Returns a stop function.
   */
  watchPodsOnNode(
    node: string,
    handler: (event: PodWatchEvent) => void,
    onEnd: (error?: unknown) => void,
  ): Promise<() => void>;
  /**
   * Every PodDisruptionBudget of the cluster: the drain sends the evictions one guards one at a time
   * (core/eviction-lanes.ts). Absent where there are none to read (fakes).
   */
  listDisruptionBudgets?(): Promise<DisruptionBudget[]>;
}

/** A coordination.k8s.io/v1 Lease as the slots see it. */
export interface LeaseInfo {
  name: string;
  resourceVersion: string;
  /** Empty when free. */
  holder: string;
  /** 0: the Lease has no duration and never expires (`slot.ttl: 0`). */
  durationSeconds: number;
  acquiredAt?: Date;
  renewedAt?: Date;
  transitions: number;
  /** What the holder wrote beside it (the leader's Slack receiver, core/leader-address.ts). */
  annotations?: Record<string, string>;
}

export interface LeaseRecord {
  holder: string;
  durationSeconds: number;
  acquiredAt: Date;
  renewedAt: Date;
  transitions: number;
  /** Written with the record; a replace without them drops the holder's old ones. */
  annotations?: Record<string, string>;
}

export interface LeasesPort {
  getLease(namespace: string, name: string): Promise<LeaseInfo | undefined>;
  /** Create; AlreadyExists throws a `conflict` KubemaintError (someone else created it first). */
  createLease(namespace: string, name: string, record: LeaseRecord): Promise<LeaseInfo>;
  /** Replace, conditional on `resourceVersion` (a stale one throws `conflict`). */
  replaceLease(
    namespace: string,
    name: string,
    resourceVersion: string,
    record: LeaseRecord,
  ): Promise<LeaseInfo>;
}

export interface NodeEvent {
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
}

export interface EventsPort {
  /** A core/v1 Event on the Node (namespace `default`). Never throws: Events are best effort. */
  recordNodeEvent(node: { name: string; uid: string }, event: NodeEvent): Promise<void>;
}

export interface HostResult {
  exitCode: number;
  /** The last lines of stderr, for the failure report. */
  stderr: string;
}

/** What runs on the host: the argv of a process, or a signal to a PID (the `signal` reboot method). */
export interface HostPort {
  run(argv: readonly string[]): Promise<HostResult>;
  signal(pid: number, signal: number): void;
}

export type { Clock } from '../core/clock.js';
