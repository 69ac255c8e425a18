import type { ResourceRegistry } from './resource-registry.js';

/**
 * The contract between the sim's store (store.ts, served over HTTP by the API server) and everything
 * that runs inside the sim (controllers, kubelets, scenarios, the admin endpoint). Controllers call
 * the store in process; outside clients (kubectl, @kubernetes/client-node, kubemaint itself) only
 * ever see the HTTP API.
 */

/** Kubernetes object as stored: plain JSON. Kinds add their own fields; the store only needs metadata. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [field: string]: unknown;
}

/**
 * Resource key: `<plural>` for the core group, `<plural>.<group>` otherwise (as kubectl writes them):
 * `pods`, `nodes`, `events`, `jobs.batch`, `leases.coordination.k8s.io`, `events.events.k8s.io`.
 */
export type ResourceKey = string;

export const R = {
  namespaces: 'namespaces',
  nodes: 'nodes',
  pods: 'pods',
  events: 'events',
  configmaps: 'configmaps',
  secrets: 'secrets',
  serviceaccounts: 'serviceaccounts',
  pdbs: 'poddisruptionbudgets.policy',
  leases: 'leases.coordination.k8s.io',
  jobs: 'jobs.batch',
  deployments: 'deployments.apps',
  replicasets: 'replicasets.apps',
  daemonsets: 'daemonsets.apps',
  statefulsets: 'statefulsets.apps',
  controllerrevisions: 'controllerrevisions.apps',
  eventsV1: 'events.events.k8s.io',
  services: 'services',
  endpoints: 'endpoints',
  endpointslices: 'endpointslices.discovery.k8s.io',
  pvcs: 'persistentvolumeclaims',
  cronjobs: 'cronjobs.batch',
} as const satisfies Record<string, ResourceKey>;

export interface ListOptions {
  namespace?: string;
  /** Kubernetes label selector syntax: `a=b,c!=d,e in (f,g),!h,i`. */
  labelSelector?: string;
  /** `spec.nodeName=n1,status.phase!=Succeeded,metadata.name=x,metadata.namespace=y`. */
  fieldSelector?: string;
  /** Page size for `listPage`; 0 or absent returns everything. */
  limit?: number;
  /** Opaque token from a previous page's `continue` (410 Expired once it falls out of history). */
  continue?: string;
}

/** One page of a list, as the API's `<Kind>List` carries it. */
export interface ListPage {
  items: KObject[];
  /** The store's resourceVersion when the page was served (watch from here). */
  resourceVersion: string;
  /** Set when more items follow: pass it back as `continue`. */
  continue?: string;
  /** How many items follow, when the list had no selector (as the apiserver counts them). */
  remainingItemCount?: number;
}

export interface WriteOptions {
  /** Who wrote it, for the audit log: `kubelet/node-3`, `controller/job`, `http:<user-agent>`. */
  actor?: string;
  /** `dryRun=All`: validate and return the result, store nothing, emit no watch event. */
  dryRun?: boolean;
  /** Subresource written, for the audit log (`status` also limits an update to the status). */
  subresource?: string;
  /** Audit verb when it is not the method's own (the API's PATCH is an update underneath). */
  verb?: 'patch';
  /**
   * Validating admission (the API's ValidatingAdmissionPolicies): called with the object as it would
   * be stored, after defaulting and validation and before anything is written (dry runs included),
   * as kube-apiserver runs it. `object` is undefined on delete, `old` on create. Throws to refuse.
   */
  admit?: (object: KObject | undefined, old: KObject | undefined) => void;
  /**
   * The field manager (the API's writes): called with the object about to be stored, after
   * defaulting and before validation, and `old` on updates; sets its `metadata.managedFields`.
   */
  track?: (object: KObject, old: KObject | undefined) => void;
}

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

export interface DeleteOptions extends WriteOptions {
  /** Graceful deletion: objects with a grace period > 0 get deletionTimestamp and stay until finalized. */
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  /**
   * What should happen to dependents (objects whose ownerReferences name this one). The store leaves
   * dependents alone and only records the policy (on the DELETED watch event and the audit entry);
   * the sim's garbage collector acts on it. Absent: the kind's default (Orphan for batch/v1 Jobs,
   * Background otherwise).
   */
  propagationPolicy?: PropagationPolicy;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent {
  type: WatchEventType;
  object: KObject;
  /** DELETED only: the effective propagation policy of the delete that removed the object. */
  propagationPolicy?: PropagationPolicy;
  /**
   * MODIFIED only, and only on shared views (the API's watch): the object before the change, so a
   * selecting watch can tell an object that stopped matching (DELETED) from one it never saw.
   */
  previous?: KObject;
}

/**
 * Errors the store throws; the API server renders them as `Status` with the same code and reason.
 * reason: NotFound 404, AlreadyExists 409, Conflict 409, Invalid 422, TooManyRequests 429,
 * Gone 410 (watch too old), BadRequest 400, MethodNotAllowed 405, InternalError 500.
 */
export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds for Retry-After on 429. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: number,
    reason: string,
    message: string,
    extra?: { details?: Record<string, unknown>; retryAfterSeconds?: number },
  ) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = extra?.details;
    this.retryAfterSeconds = extra?.retryAfterSeconds;
  }
}

/** One entry per successful write, kept in order: tests check invariants on it afterwards. */
export interface AuditEntry {
  /** Global resourceVersion after the write. */
  rv: number;
  /** Sim time, ISO. */
  at: string;
  verb: 'create' | 'update' | 'patch' | 'delete';
  resource: ResourceKey;
  /** Subresource written, e.g. `status`, `eviction`, `binding`. */
  subresource?: string;
  namespace?: string;
  name: string;
  actor: string;
  /**
   * The object after the write; for deletes, the last state. Shared with the store's history (the
   * store never mutates a stored object in place): read it, do not modify it.
   */
  object: KObject;
  /** Deletes only: the effective propagation policy. */
  propagationPolicy?: PropagationPolicy;
}

/** In-process store API used by controllers. All methods are synchronous and return deep copies. */
export interface Store {
  /** What it serves: the built-in kinds and its CustomResourceDefinitions' resources. */
  readonly resources: ResourceRegistry;
  get(resource: ResourceKey, namespace: string | undefined, name: string): KObject | undefined;
  list(resource: ResourceKey, options?: ListOptions): KObject[];
  create(resource: ResourceKey, object: KObject, options?: WriteOptions): KObject;
  /** Replaces the object; if `metadata.resourceVersion` is set it must match (409 Conflict otherwise). */
  update(
    resource: ResourceKey,
    object: KObject,
    options?: WriteOptions & { subresource?: string },
  ): KObject;
  /**
   * Read-modify-write helper for controllers: applies `mutate` to a copy of the current object and
   * writes it if anything changed. Returns undefined when the object does not exist.
   */
  mutate(
    resource: ResourceKey,
    namespace: string | undefined,
    name: string,
    mutate: (object: KObject) => void,
    options?: WriteOptions & { subresource?: string },
  ): KObject | undefined;
  delete(
    resource: ResourceKey,
    namespace: string | undefined,
    name: string,
    options?: DeleteOptions,
  ): KObject | undefined;
  /** Subscribe to changes of one resource; returns an unsubscribe function. Events are delivered synchronously after each write. */
  watch(resource: ResourceKey, handler: (event: WatchEvent) => void): () => void;
  /** Every write so far, oldest first. */
  audit(): readonly AuditEntry[];
  /** The global resourceVersion of the last write ("0" before any). */
  resourceVersion(): string;
  /**
   * One page of a list in key order (namespace/name), O(log n + page). With `shared` the items are
   * the stored objects themselves (no copy: for serializers that only read them).
   */
  listPage(resource: ResourceKey, options?: ListOptions, view?: { shared?: boolean }): ListPage;
  /**
   * Watch from a resourceVersion: replays the retained events after `sinceRv`, then follows live
   * changes. Throws StatusError 410 Expired when `sinceRv` is older than the retained window.
   * `sinceRv` undefined means "from now". With `shared`, events carry the stored objects (read-only).
   */
  watchFrom(
    resource: ResourceKey,
    sinceRv: string | undefined,
    handler: (event: WatchEvent) => void,
    options?: { shared?: boolean },
  ): () => void;
}

/**
 * The sim's one clock. Sim time runs `scale` times faster than wall time (scale 60: one sim minute a
 * wall second), so a test can run an hour of cluster time in a minute. Every delay in the sim (pod
 * start, termination grace, reboot, heartbeats, node-monitor grace) is in sim milliseconds.
 */
export interface SimClock {
  /** Current sim time. */
  now(): Date;
  /** Run `fn` after `simMs` of sim time; returns a cancel function. */
  after(simMs: number, fn: () => void): () => void;
  /** Run `fn` every `simMs` of sim time; returns a cancel function. */
  every(simMs: number, fn: () => void): () => void;
  readonly scale: number;
}
