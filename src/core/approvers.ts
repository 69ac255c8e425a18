/**
 * Who may approve, reject and cancel: approvers by user ID and by group (membership passed in),
 * auto-approval by a rule the config names, the two-person rule and proposal expiry. Pure rules that
 * `approval.ts` applies on every transition and re-checks before a request starts (invariant 2).
 *
 * Two-person rule: two distinct authorised approvers, and the requester may be NEITHER of them. A rule
 * that only barred the requester from the second approval would depend on who clicked first (requester
 * then colleague passes, colleague then requester fails), so we bar the requester from both. Without
 * the rule one authorised approval suffices, and an authorised requester may approve their own request.
 * A policy auto-approval (`policy:<rule>`, a rule the config names) stands alone: the config made it.
 */
import type { MaintenanceRequest } from './request.js';

export interface ApprovalPolicy {
  /** User IDs (Slack `U…`, or `cli:<user>`) who may approve. */
  users: readonly string[];
  /** Group IDs (Slack user groups `S…`) whose members may approve. */
  groups: readonly string[];
  /** Require two distinct approvers, neither of them the requester. @default false */
  twoPersonRule?: boolean;
  /** Names of the config's auto-approval rules, approving as `policy:<name>`. */
  autoApproveRules?: readonly string[];
  /** Proposals not approved within this many ms expire. */
  expiresAfterMs?: number;
}

/** A person, with the groups they belong to (the Slack adapter looks the membership up). */
export interface Person {
  kind: 'person';
  id: string;
  groups?: readonly string[];
}
/** kubemaint itself: the tick, the executor, the detector. Never an approver. */
export interface System {
  kind: 'system';
  id: string;
}
export type Actor = Person | System;
export type Approver = Person | { kind: 'policy'; rule: string };

export const actorId = (actor: Approver | Actor): string =>
  actor.kind === 'policy' ? `policy:${actor.rule}` : actor.id;

/** Why `approver` may not approve under `policy`, or undefined when they may. */
export function authorisationProblem(
  approver: Approver,
  policy: ApprovalPolicy,
): string | undefined {
  if (approver.kind === 'policy') {
    return (policy.autoApproveRules ?? []).includes(approver.rule)
      ? undefined
      : `auto-approval rule "${approver.rule}" is not configured`;
  }
  if (approver.id.startsWith('policy:')) return `"${approver.id}" is not a person's ID`;
  if (policy.users.includes(approver.id)) return undefined;
  if ((approver.groups ?? []).some((g) => policy.groups.includes(g))) return undefined;
  const groups = policy.groups.length ? policy.groups.join(', ') : 'none configured';
  return `${approver.id} is not an approver (not listed by user ID, and in none of the approver groups: ${groups})`;
}

/** When a proposal expires, or undefined when proposals never expire. */
export function expiresAt(request: MaintenanceRequest, policy: ApprovalPolicy): Date | undefined {
  if (policy.expiresAfterMs === undefined) return undefined;
  return new Date(Date.parse(request.createdAt) + policy.expiresAfterMs);
}

/** Whether the recorded approvals are enough for `policy` (re-checked before anything disruptive). */
export function approvalsSatisfy(request: MaintenanceRequest, policy: ApprovalPolicy): boolean {
  const rules = policy.autoApproveRules ?? [];
  if (request.approvals.some((a) => rules.some((rule) => a.by === `policy:${rule}`))) return true;
  const people = new Set(
    request.approvals.map((a) => a.by).filter((by) => !by.startsWith('policy:')),
  );
  if (!policy.twoPersonRule) return people.size >= 1;
  people.delete(request.requestedBy);
  return people.size >= 2;
}
