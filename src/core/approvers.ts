/**
 * Who may propose, approve, reject, cancel and force: identities by ID and by group (membership passed
 * in), persons that join several identities, auto-approval by a rule the config names, the two-person
 * rule and proposal expiry. Pure rules that `approval.ts` applies on every transition and re-checks
 * before a request starts (invariant 2).
 *
 * Identities (ADR 0012): a Slack user is their Slack user ID (`U…`/`W…`, groups `S…`); a Kubernetes
 * user is `k8s:<username>` (groups `k8s:<group>`); auto-approval is `policy:<rule>`; kubemaint itself
 * is `kubemaint`, `executor`, `detector`. The config's `people:` joins identities into persons
 * (`policy.people`), and every count of approvers counts persons: alice approving from Slack and
 * from the CLI is one approval, not two (invariant 9).
 *
 * Two-person rule: two distinct authorised persons, and the requester's person may be NEITHER of them.
 * A rule that only barred the requester from the second approval would depend on who clicked first
 * (requester then colleague passes, colleague then requester fails), so we bar the requester from
 * both. Without the rule one authorised approval suffices, and an authorised requester may approve
 * their own request. A policy auto-approval (`policy:<rule>`, a rule the config names) stands alone:
 * the config made it. Forcing a stalled drain past its PDBs needs as many persons as approving does,
 * and no policy may force.
 */
import type { MaintenanceRequest } from './request.js';

/** Who may do something: identities by ID, and groups whose members may. */
export interface IdentityList {
  /** Identity IDs: Slack user IDs (`U…`/`W…`) and Kubernetes users (`k8s:<username>`). */
  users: readonly string[];
  /** Group IDs: Slack user groups (`S…`) and Kubernetes groups (`k8s:<group>`). */
  groups: readonly string[];
}

export interface ApprovalPolicy extends IdentityList {
  /**
   * Who may propose by hand besides the approvers (`users`/`groups` above). Absent: nobody else.
   * Detection proposes as kubemaint itself and needs no permission.
   */
  proposers?: IdentityList;
  /**
   * Identity → person, from the config's `people:` (`{ 'k8s:alice': 'alice', U0ALICE: 'alice' }`).
   * An identity not listed is a person of its own.
   */
  people?: Readonly<Record<string, string>>;
  /** Require two distinct approving persons, neither of them the requester. @default false */
  twoPersonRule?: boolean;
  /** Names of the config's auto-approval rules, approving as `policy:<name>`. */
  autoApproveRules?: readonly string[];
  /** Proposals not approved within this many ms expire. */
  expiresAfterMs?: number;
}

/** A person, with the groups they belong to (the Slack adapter looks the membership up; Kubernetes
 * groups come from the apiserver's authentication, as `k8s:<group>`). */
export interface Person {
  kind: 'person';
  id: string;
  /** A Slack user's workspace (`T…`), so their decision is recorded as `slack:<team>/<user>`. */
  team?: string;
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

/** Where the config lists who may approve and propose, for messages. */
const APPROVERS_AT = 'approval.approvers';
const PROPOSERS_AT = 'approval.proposers';

/**
 * The person behind an identity: the name `people:` gives it, or the identity itself when no person
 * lists it. Two identities are the same person exactly when their `personOf` is equal.
 */
export function personOf(id: string, policy: Pick<ApprovalPolicy, 'people'>): string {
  return policy.people?.[id] ?? id;
}

/** `k8s:alice (alice)` when the identity belongs to a named person, else the identity alone. */
function named(id: string, policy: ApprovalPolicy): string {
  const person = policy.people?.[id];
  return person === undefined ? id : `${id} (${person})`;
}

/** `k8s:alice and U0ALICE are the same person (alice)`, or `k8s:alice` when they are one identity. */
export function samePerson(a: string, b: string, policy: ApprovalPolicy): string {
  return a === b ? a : `${a} and ${b} are the same person (${personOf(a, policy)})`;
}

function listed(person: Person, list: IdentityList): boolean {
  return (
    list.users.includes(person.id) || (person.groups ?? []).some((g) => list.groups.includes(g))
  );
}

function notAPerson(id: string): string | undefined {
  return id.startsWith('policy:') ? `"${id}" is not a person's ID` : undefined;
}

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
  const posing = notAPerson(approver.id);
  if (posing) return posing;
  if (listed(approver, policy)) return undefined;
  const groups = policy.groups.length ? policy.groups.join(', ') : 'none configured';
  return `${named(approver.id, policy)} is not an approver (not listed by ID, and in none of the approver groups: ${groups}; see ${APPROVERS_AT})`;
}

/**
 * Why `person` may not propose maintenance by hand, or undefined when they may: approvers and
 * proposers may. Detection proposes as kubemaint itself and never asks.
 */
export function proposeProblem(person: Person, policy: ApprovalPolicy): string | undefined {
  const posing = notAPerson(person.id);
  if (posing) return posing;
  if (listed(person, policy)) return undefined;
  if (policy.proposers && listed(person, policy.proposers)) return undefined;
  return `${named(person.id, policy)} may not propose maintenance: only approvers (${APPROVERS_AT}) and proposers (${PROPOSERS_AT}) may`;
}

/** When a proposal expires, or undefined when proposals never expire. */
export function expiresAt(request: MaintenanceRequest, policy: ApprovalPolicy): Date | undefined {
  if (policy.expiresAfterMs === undefined) return undefined;
  return new Date(Date.parse(request.createdAt) + policy.expiresAfterMs);
}

/** How many distinct persons must approve (or force) under `policy`. */
export const personsRequired = (policy: ApprovalPolicy): number => (policy.twoPersonRule ? 2 : 1);

/**
 * The distinct persons behind `ids` that count under `policy`: policies never count, and under the
 * two-person rule neither does the requester's person.
 */
function countedPersons(
  ids: readonly string[],
  request: MaintenanceRequest,
  policy: ApprovalPolicy,
): Set<string> {
  const persons = new Set(
    ids.filter((id) => !id.startsWith('policy:')).map((id) => personOf(id, policy)),
  );
  if (policy.twoPersonRule) persons.delete(personOf(request.requestedBy, policy));
  return persons;
}

/** Whether the recorded approvals are enough for `policy` (re-checked before anything disruptive). */
export function approvalsSatisfy(request: MaintenanceRequest, policy: ApprovalPolicy): boolean {
  const rules = policy.autoApproveRules ?? [];
  if (request.approvals.some((a) => rules.some((rule) => a.by === `policy:${rule}`))) return true;
  const persons = countedPersons(
    request.approvals.map((a) => a.by),
    request,
    policy,
  );
  return persons.size >= personsRequired(policy);
}

/**
 * Why the persons who chose `force` for a stalled drain are not enough to evict past its PDBs, or
 * undefined when they are. Forcing needs what approving needs from persons (one, or two under the
 * two-person rule, never the requester's person then), each authorised now; a policy never forces.
 */
export function forceProblem(
  request: MaintenanceRequest,
  forcers: readonly Approver[],
  policy: ApprovalPolicy,
): string | undefined {
  const refused: string[] = [];
  const ids: string[] = [];
  for (const forcer of forcers) {
    if (forcer.kind === 'policy') {
      refused.push(`policy:${forcer.rule} cannot force a drain; a person must`);
      continue;
    }
    const problem = authorisationProblem(forcer, policy);
    if (problem) refused.push(problem);
    else ids.push(forcer.id);
  }
  const need = personsRequired(policy);
  const persons = countedPersons(ids, request, policy);
  if (persons.size >= need) return undefined;
  const requester = personOf(request.requestedBy, policy);
  const barred =
    policy.twoPersonRule && ids.some((id) => personOf(id, policy) === requester)
      ? `; ${named(request.requestedBy, policy)} requested it, so under the two-person rule they do not count`
      : '';
  const have = `${persons.size} of ${need} ${need === 1 ? 'person' : 'distinct persons'}`;
  const why = refused.length ? `; ${refused.join('; ')}` : '';
  return `forcing the drain of ${request.id} past its PDBs needs the approvals the request needs: ${have}${barred}${why}`;
}

/** Whether `forcers` may force a stalled drain of `request` past its PDBs (see `forceProblem`). */
export function forceSatisfied(
  request: MaintenanceRequest,
  forcers: readonly Approver[],
  policy: ApprovalPolicy,
): boolean {
  return forceProblem(request, forcers, policy) === undefined;
}
