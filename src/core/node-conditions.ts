/**
 * The Node conditions that tell other tools where a node's maintenance is (KEP-5683, Node Lifecycle
 * Conditions: admin-written conditions, alpha in 1.37 behind `NodeLifecycleConditions`), derived from
 * the request alone. Pure: the executor and the control plane both write what this returns after
 * each request write, so the node says the same whoever wrote last, and the times come from the
 * request (not the clock), so writing it again changes nothing. ADR 0041.
 */
import type { MaintenanceRequest } from './request.js';

/** The KEP's types; kubemaint writes no others and removes exactly these when a request ends. */
export const MAINTENANCE_CONDITION_TYPES = [
  'MaintenancePlanned',
  'DrainInProgress',
  'Drained',
  'MaintenanceInProgress',
] as const;
export type MaintenanceConditionType = (typeof MAINTENANCE_CONDITION_TYPES)[number];

/**
 * The KEP's reasons: `AdminRequested` (an approved request asked for it), `MaintenanceWindow` (planned,
 * waiting for its window to open), `DrainCompleted` (every pod is off the node).
 */
export type MaintenanceConditionReason = 'AdminRequested' | 'MaintenanceWindow' | 'DrainCompleted';

export interface MaintenanceCondition {
  type: MaintenanceConditionType;
  status: 'True';
  reason: MaintenanceConditionReason;
  /** Names the request, so `kubectl describe node` leads to it (`kubemaint status <id>`). */
  message: string;
  /** ISO instant the condition became true: a time the request recorded. */
  lastTransitionTime: string;
}

/** When the request last moved into `state` (its history), else when it was last updated. */
function enteredAt(request: MaintenanceRequest, state: MaintenanceRequest['state']): string {
  const entry = request.history.findLast((t) => t.to === state);
  return entry?.at ?? request.updatedAt;
}

const WINDOW_REASON = /^window /;

/**
 * The conditions the request's node carries now, in the KEP's order; none once the request has ended
 * or before anyone approved it (a proposal plans nothing).
 */
export function maintenanceConditions(request: MaintenanceRequest): MaintenanceCondition[] {
  const named = `kubemaint request ${request.id} (${request.action}${request.targetVersion ? ` to ${request.targetVersion}` : ''})`;
  const condition = (
    type: MaintenanceConditionType,
    reason: MaintenanceConditionReason,
    message: string,
    at: string,
  ): MaintenanceCondition => ({
    type,
    status: 'True',
    reason,
    message: `${named}: ${message}`,
    lastTransitionTime: at,
  });
  switch (request.state) {
    case 'approved': {
      const waiting = request.blockedReasons?.[0];
      const windowed = waiting !== undefined && WINDOW_REASON.test(waiting);
      return [
        condition(
          'MaintenancePlanned',
          windowed ? 'MaintenanceWindow' : 'AdminRequested',
          `approved; ${waiting ?? 'waiting for its window and a free slot'}`,
          enteredAt(request, 'approved'),
        ),
      ];
    }
    case 'running':
    case 'verifying': {
      const drainedAt = request.drain?.completedAt ?? request.hostCommandIssuedAt;
      if (!drainedAt)
        return [
          condition(
            'DrainInProgress',
            'AdminRequested',
            'cordoned and draining',
            enteredAt(request, 'running'),
          ),
        ];
      const drained = condition(
        'Drained',
        'DrainCompleted',
        'every pod that could be evicted is off the node',
        drainedAt,
      );
      if (!request.hostCommandIssuedAt) return [drained];
      const doing = request.action === 'upgrade' ? 'upgrading the kubelet' : 'rebooting';
      return [
        drained,
        condition(
          'MaintenanceInProgress',
          'AdminRequested',
          `${doing}; kubemaint verifies the node came back`,
          request.hostCommandIssuedAt,
        ),
      ];
    }
    case 'proposed':
    case 'done':
    case 'rejected':
    case 'expired':
    case 'cancelled':
    case 'failed':
    case 'skipped':
      return [];
  }
}

/** Whether two condition sets say the same (so a write can be skipped). */
export const sameConditions = (
  a: readonly MaintenanceCondition[],
  b: readonly MaintenanceCondition[],
): boolean => JSON.stringify(a) === JSON.stringify(b);
