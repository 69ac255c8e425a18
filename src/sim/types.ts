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
  eventsV1: 'events.events.k8s.io',
} as const satisfies Record<string, ResourceKey>;

export interface ListOptions {
  namespace?: string;
  /** Kubernetes label selector syntax: `a=b,c!=d,e in (f,g),!h,i`. */
  labelSelector?: string;
  /** `spec.nodeName=n1,status.phase!=Succeeded,metadata.name=x,metadata.namespace=y`. */
  fieldSelector?: string;
}

export interface WriteOptions {
  /** Who wrote it, for the audit log: `kubelet/node-3`, `controller/job`, `http:<user-agent>`. */
  actor?: string;
  /** `dryRun=All`: validate and return the result, store nothing, emit no watch event. */
  dryRun?: boolean;
}

export interface DeleteOptions extends WriteOptions {
  /** Graceful deletion: objects with a grace period > 0 get deletionTimestamp and stay until finalized. */
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent {
  type: WatchEventType;
  object: KObject;
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
  /** The object after the write (a deep copy); for deletes, the last state. */
  object: KObject;
}

/** In-process store API used by controllers. All methods are synchronous and return deep copies. */
export interface Store {
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
