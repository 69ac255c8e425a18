/**
 * What happened to a maintenance request, as every reporter sees it: Slack thread replies, the
 * notification URLs and Kubernetes Events all render this one shape. Pure data, no rendering here.
 */
import type { Action } from './request.js';

/**
 * The moments people are told about, in the order a request usually meets them; `hook` is a hook
 * Job starting or ending (ADR 0021), whenever it runs.
 */
export const EVENT_KINDS = [
  'proposed',
  'approved',
  'rejected',
  'blocked',
  'draining',
  'rebooting',
  'upgrading',
  'back',
  'done',
  'failed',
  'hook',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

export interface MaintenanceEvent {
  kind: EventKind;
  node: string;
  /** The cluster's display name from the config, so one channel can serve several fleets. */
  cluster: string;
  requestId: string;
  action: Action;
  /** Why the request exists (proposed), or why it is blocked / rejected. */
  reason?: string;
  /** Who approved or rejected: a Slack user ID, `cli:<user>` or `policy:<rule>`. */
  approver?: string;
  /** How long the step or the whole request took, when the event closes something. */
  durationMs?: number;
  /** Free text: a failure's explanation, including the state the node was left in. */
  detail?: string;
  /** For upgrades: the kubelet version being reached. */
  targetVersion?: string;
  /** ISO-8601 instant the event happened. */
  at?: string;
  /**
   * Set when the event asks people to decide something: `drain-decision` for a drain stalled longer
   * than `drain.stallAfter` (keep waiting, skip the node, or force the remaining pods out).
   */
  ask?: 'drain-decision';
}

export const isEventKind = (value: string): value is EventKind =>
  (EVENT_KINDS as readonly string[]).includes(value);
