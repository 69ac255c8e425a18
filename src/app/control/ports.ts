/**
 * Ports of the control plane (the tick and the commands people run from the CLI or Slack). The kube
 * adapter implements ClusterPort over the real API; tests run it against the embedded sim. Nothing here
 * knows about HTTP, Slack or the SDKs.
 */
import type { MaintenanceEvent } from '../../core/events.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { NodeInfo, PodInfo } from '../ports.js';

/** A node as the control plane sees it: the executor's NodeInfo plus conditions and the parsed request. */
export interface NodeView extends NodeInfo {
  /** Condition type → status, for detection through node conditions (Node Problem Detector). */
  conditions: Record<string, string>;
  /** Parsed `kubemaint.io/request`; undefined when absent. */
  request?: MaintenanceRequest;
  /** Why the annotation could not be read as a request (reported, never thrown). */
  requestError?: string;
}

export interface JobView {
  name: string;
  /** 'active' while its pod runs, then 'succeeded' or 'failed'. */
  phase: 'active' | 'succeeded' | 'failed';
  /** Exit code of the executor container when it ended, when known. */
  exitCode?: number;
  message?: string;
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
  getNode(name: string): Promise<NodeView | undefined>;
  /**
   * Replace the node's request with a conditional write on `resourceVersion` (409 → ConflictError),
   * keeping the `kubemaint.io/state` label in step. Returns the node's new resourceVersion.
   */
  writeRequest(node: string, resourceVersion: string, request: MaintenanceRequest): Promise<string>;
  patchNode(node: string, patch: NodePatch): Promise<void>;
  /** gitVersion of the apiserver(s); the oldest when several answer. */
  apiserverVersions(): Promise<string[]>;
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

/** Where reports go: console now, Slack threads and notification URLs later. Never throws. */
export interface Notifier {
  notify(event: MaintenanceEvent, request: MaintenanceRequest): Promise<void>;
}

export interface Clock {
  now(): Date;
}

/** Random bytes for request and campaign ids, injectable so tests are deterministic. */
export type RandomBytes = (count: number) => Uint8Array;
