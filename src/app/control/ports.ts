/**
 * Ports of the control plane (the tick and the commands people run from the CLI or Slack). The kube
 * adapter implements ClusterPort over the real API; tests run it against the embedded sim. Nothing here
 * knows about HTTP, Slack or the SDKs.
 */
import type { ApiserverFacts } from '../../core/apiserver-bound.js';
import type { MaintenanceEvent } from '../../core/events.js';
import type { Decision, MaintenanceRequest } from '../../core/request.js';
import type { NodeView } from '../../core/node.js';
import type { PodInfo } from '../ports.js';
import type { QueryGate, QueryStep } from '../../core/query-gate.js';
import type { Matcher } from '../../core/silence.js';

export type { NodeView } from '../../core/node.js';

/**
 * Which requests to list with their nodes: the active ones, each node's latest, or those the
 * executor ended and nobody reported yet (`endedUnreported`).
 */
export type RequestScope = 'active' | 'all' | 'unreported';

export interface JobView {
  name: string;
  /** 'active' while its pod runs, then 'succeeded' or 'failed'. */
  phase: 'active' | 'succeeded' | 'failed';
  /** Exit code of the executor container when it ended, when known. */
  exitCode?: number;
  /** Why that container ended, as the kubelet says (`Error`, `OOMKilled`, `Unknown`…), when known. */
  exitReason?: string;
  message?: string;
  /** The failed container's termination message (a hook's last log lines), when it left one. */
  podMessage?: string;
}

export interface SlotView {
  name: string;
  /** `<node>/<requestId>`, empty when free. */
  holder: string;
  renewedAt?: Date;
  durationSeconds?: number;
}

/** The cluster, as the control plane uses it. Each call is one API request unless it says otherwise. */
export interface ClusterPort {
  /** Paginated list; `labelSelector` narrows it (the cheap path of an idle tick). */
  listNodes(labelSelector?: string): Promise<NodeView[]>;
  /**
   * The nodes that carry a request, read from the requests (one list) and then their nodes: the
   * idle tick's first read. A request whose node is gone comes back as a `missing` view.
   */
  listRequestNodes(scope: RequestScope): Promise<NodeView[]>;
  /**
   * Every request object, each as decoded (every state and node; one a person created and the
   * control plane has not accepted yet, too): the history the status page draws. One list.
   * `strict`: an object that cannot be decoded fails the read (naming it) instead of being left
   * out, for readers that must not judge a cluster from part of it (the gate across clusters).
   */
  listRequests(options?: { strict?: boolean }): Promise<MaintenanceRequest[]>;
  getNode(name: string): Promise<NodeView | undefined>;
  /**
   * Runs `work` as one pass over the cluster (a tick): within it, the requests are read once and
   * that read is used again, until a request is written in it. Calls outside `work` (and without a
   * pass at all) read them afresh. The port stays this one, so whatever wraps it still applies.
   */
  onePass?<T>(work: () => Promise<T>): Promise<T>;
  /** The node of request `id` with that request (any state), or undefined when there is none. */
  findRequest(id: string): Promise<NodeView | undefined>;
  /**
   * Write a request: create it when `requestVersion` is undefined, else replace its status with a
   * conditional write (409 → ConflictError). Keeps the node's `kubemaint.io/state` mirror label and
   * its maintenance conditions (KEP-5683, core/node-conditions.ts) in step. Returns the request's new
   * resourceVersion.
   */
  writeRequest(request: MaintenanceRequest, requestVersion: string | undefined): Promise<string>;
  /**
   * Create a request as the caller, without a status (the CLI, in a person's name): the control
   * plane accepts or refuses it on its next tick.
   */
  submit(request: MaintenanceRequest): Promise<void>;
  /** Delete a request the control plane created a moment ago and lost a race with (never a person's). */
  withdrawRequest(id: string): Promise<void>;
  /** Decisions recorded for a request (or all), oldest first, as admission admitted them. */
  decisions(requestId?: string): Promise<Decision[]>;
  /** Record a decision in the author's name; `created: false` when it was already recorded. */
  decide(decision: Omit<Decision, 'name' | 'at'>): Promise<{ name: string; created: boolean }>;
  patchNode(node: string, patch: NodePatch): Promise<void>;
  /**
   * Add or remove the waiting taint `<key>:PreferNoSchedule` (core/waiting-taint.ts), leaving every
   * other taint as it is; true when the node changed, false when it already was so or is gone.
   */
  setWaitingTaint(node: string, key: string, present: boolean): Promise<boolean>;
  /**
   * Every kube-apiserver found, each with its binary and emulated version and the source that found
   * it, and what each source gave (ADR 0050); core/apiserver-bound.ts takes the bound from it.
   */
  apiserverFacts(): Promise<ApiserverFacts>;
  getJob(name: string): Promise<JobView | undefined>;
  /** Create the executor Job; an existing Job of that name is not an error (returns false). */
  createJob(manifest: Record<string, unknown>): Promise<boolean>;
  listSlots(): Promise<SlotView[]>;
  releaseSlot(name: string, holder: string): Promise<boolean>;
  listPods(options: { node?: string; labelSelector?: string }): Promise<PodInfo[]>;
  /** Dry-run eviction (`dryRun=All`): undefined when allowed, else the API's refusal message. */
  dryRunEvict(namespace: string, name: string): Promise<string | undefined>;
  recordEvent(
    node: string,
    event: { reason: string; message: string; type?: 'Normal' | 'Warning' },
  ): Promise<void>;
  /** The pause switch lives in a ConfigMap in the kubemaint namespace (the cluster is the only store). */
  readPause(): Promise<{ paused: boolean; reason?: string; by?: string; at?: string }>;
  writePause(state: { paused: boolean; reason?: string; by?: string; at?: string }): Promise<void>;
}

export interface NodePatch {
  unschedulable?: boolean | null;
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
}

/** Prometheus alerts, as kured reads them: names of firing (or pending) alerts, or an error. */
export interface AlertsPort {
  activeAlerts(): Promise<string[]>;
}

/**
 * Prometheus query gates: the answer of `gate.query` now, or at each step of `gate.forMs` (oldest
 * first). Throws when there is no answer; the gate then blocks.
 */
export interface QueryPort {
  answer(gate: QueryGate): Promise<{ steps: QueryStep[] }>;
}

/**
 * Alertmanager's silences, as the control plane makes, extends and expires them. Times are
 * Alertmanager's (the adapter's wall clock): a silence ends `forMs` from when it is written. Every
 * call throws when Alertmanager does not answer as its API says.
 */
export interface SilencesPort {
  /** Make one silence, active now; its id and when it ends. */
  create(silence: {
    matchers: Matcher[];
    comment: string;
    forMs: number;
  }): Promise<{ id: string; endsAt: string }>;
  /** Make it end `forMs` from now (the id Alertmanager kept); undefined when expired or gone. */
  extend(id: string, forMs: number): Promise<{ id: string; endsAt: string } | undefined>;
  /** End a silence now; one already expired or gone is not an error. */
  expire(id: string): Promise<void>;
  /** This cluster's kubemaint's silences that are active or pending, and how long ago each began. */
  listOwn(): Promise<{ id: string; ageMs: number }[]>;
}

/** Where reports go: console now, Slack threads and notification URLs later. Never throws. */
export interface Notifier {
  notify(event: MaintenanceEvent, request: MaintenanceRequest): Promise<void>;
}

/** The control plane only reads the time: a clock that cannot wait is enough (core/clock.ts). */
export type { Clock } from '../../core/clock.js';

/** Random bytes for request and campaign ids, injectable so tests are deterministic. */
export type RandomBytes = (count: number) => Uint8Array;
