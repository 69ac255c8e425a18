/**
 * The request state machine of DESIGN §4 (proposed → approved → running → verifying → done, or
 * rejected | expired | cancelled | failed) and who may move it. Every transition is a pure function
 * `(request, input, now) → result`: the caller writes the new request back with a conditional update,
 * so two clicks or two ticks cannot both win. Transitions are idempotent (repeating one that already
 * happened is `ok` with `changed: false`) and each change appends to `history`.
 * Who may do what is decided in `approvers.ts`.
 */
import { formatDuration } from './duration.js';
import { isRequestId } from './request-id.js';
import {
  actorId,
  approvalsSatisfy,
  authorisationProblem,
  expiresAt,
  personOf,
  samePerson,
  type Actor,
  type ApprovalPolicy,
  type Approver,
  type Person,
  type System,
} from './approvers.js';
import {
  isActive,
  type Action,
  type MaintenanceRequest,
  type Origin,
  type RequestState,
} from './request.js';

export const APPROVAL_ERRORS = [
  'invalid_transition',
  'not_authorised',
  'two_person_rule',
  'expired',
  'busy',
  'bad_input',
] as const;
export type ApprovalErrorCode = (typeof APPROVAL_ERRORS)[number];

export type TransitionResult =
  | { ok: true; request: MaintenanceRequest; changed: boolean }
  | { ok: false; error: { code: ApprovalErrorCode; message: string } };

const refuse = (code: ApprovalErrorCode, message: string): TransitionResult => ({
  ok: false,
  error: { code, message },
});
const same = (request: MaintenanceRequest): TransitionResult => ({
  ok: true,
  request,
  changed: false,
});

function advance(
  request: MaintenanceRequest,
  to: RequestState,
  by: string,
  now: Date,
  note?: string,
  patch: Partial<MaintenanceRequest> = {},
): TransitionResult {
  const at = now.toISOString();
  const entry = { from: request.state, to, at, by, ...(note === undefined ? {} : { note }) };
  return {
    ok: true,
    changed: true,
    request: {
      ...request,
      ...patch,
      state: to,
      updatedAt: at,
      history: [...request.history, entry],
    },
  };
}

const notFrom = (request: MaintenanceRequest, verb: string, hint = ''): TransitionResult =>
  refuse(
    'invalid_transition',
    `request ${request.id} is ${request.state}; nothing to ${verb}${hint}`,
  );

const VERSION = /^v\d{1,3}\.\d{1,3}\.\d{1,4}(?:[-+][0-9A-Za-z.-]{1,64})?$/;

export interface ProposeInput {
  id: string;
  node: string;
  action: Action;
  targetVersion?: string;
  reason: string;
  requestedBy: string;
  /** `detection` for what the tick found, `person` for a hand-typed proposal (absent = person). */
  origin?: Origin;
  campaign?: string;
  pool?: string;
}

function inputProblem(input: ProposeInput): string | undefined {
  if (!isRequestId(input.id)) return `request id "${input.id}" is not r- and 6 hex characters`;
  if (input.node.trim() === '') return 'node name is empty';
  if (input.action === 'upgrade' && !VERSION.test(input.targetVersion ?? ''))
    return `upgrade target "${input.targetVersion ?? ''}" is not a version like v1.31.4`;
  if (input.action === 'reboot' && input.targetVersion !== undefined)
    return 'a reboot has no target version';
  return undefined;
}

/**
 * Record a new proposal. `existing` is the node's current request, if any: an active one for the
 * same change is returned unchanged (a second tick must not propose twice), any other active one
 * makes this `busy`, and an ended one is replaced.
 */
export function propose(
  existing: MaintenanceRequest | undefined,
  input: ProposeInput,
  now: Date,
): TransitionResult {
  const problem = inputProblem(input);
  if (problem) return refuse('bad_input', `cannot propose for ${input.node || '?'}: ${problem}`);
  if (existing && isActive(existing.state)) {
    const sameChange =
      existing.node === input.node &&
      existing.action === input.action &&
      existing.targetVersion === input.targetVersion;
    if (sameChange) return same(existing);
    return refuse(
      'busy',
      `${existing.node} already has request ${existing.id} (${existing.action}, ${existing.state}); let it finish or cancel it first`,
    );
  }
  const at = now.toISOString();
  const request: MaintenanceRequest = {
    ...input,
    state: 'proposed',
    createdAt: at,
    updatedAt: at,
    approvals: [],
    history: [{ from: null, to: 'proposed', at, by: input.requestedBy, note: input.reason }],
  };
  return { ok: true, request, changed: true };
}

/** Approve as a person or as a configured auto-approval rule. */
export function approve(
  request: MaintenanceRequest,
  input: { approver: Approver; policy: ApprovalPolicy },
  now: Date,
): TransitionResult {
  const { approver, policy } = input;
  if (!isActive(request.state)) return notFrom(request, 'approve');
  const problem = authorisationProblem(approver, policy);
  if (problem) return refuse('not_authorised', `cannot approve ${request.id}: ${problem}`);
  if (request.state !== 'proposed') return same(request);
  const expiry = expiresAt(request, policy);
  if (expiry && now.getTime() >= expiry.getTime()) {
    const after = formatDuration(policy.expiresAfterMs ?? 0);
    return refuse(
      'expired',
      `request ${request.id} expired at ${expiry.toISOString()} (proposals expire after ${after}); propose it again`,
    );
  }
  const by = actorId(approver);
  if (request.approvals.some((a) => a.by === by)) return same(request);
  if (approver.kind === 'person') {
    const person = personOf(by, policy);
    if (policy.twoPersonRule && person === personOf(request.requestedBy, policy)) {
      const who =
        by === request.requestedBy ? by : `${samePerson(by, request.requestedBy, policy)}, who`;
      return refuse(
        'two_person_rule',
        `${who} requested ${request.id}, so under the two-person rule two other approvers must approve it`,
      );
    }
    // Another identity of a person who already approved: one person counts once (invariant 9).
    const earlier = request.approvals.find((a) => personOf(a.by, policy) === person);
    if (earlier) {
      return refuse(
        'two_person_rule',
        `${samePerson(by, earlier.by, policy)}, who already approved ${request.id}; a person counts once, so another approver must approve it`,
      );
    }
  }
  const approved = { ...request, approvals: [...request.approvals, { by, at: now.toISOString() }] };
  if (approvalsSatisfy(approved, policy)) return advance(approved, 'approved', by, now);
  return advance(
    approved,
    'proposed',
    by,
    now,
    'first of two approvals; waiting for a second approver',
  );
}

/** An approver turns a proposal (or an approval not yet started) down. */
export function reject(
  request: MaintenanceRequest,
  input: { by: Person; policy: ApprovalPolicy; reason?: string },
  now: Date,
): TransitionResult {
  if (request.state === 'rejected') return same(request);
  if (request.state === 'running' || request.state === 'verifying')
    return notFrom(request, 'reject', '; cancel it instead');
  if (!isActive(request.state)) return notFrom(request, 'reject');
  const problem = authorisationProblem(input.by, input.policy);
  if (problem) return refuse('not_authorised', `cannot reject ${request.id}: ${problem}`);
  return advance(request, 'rejected', input.by.id, now, input.reason);
}

/**
 * Stop a request before it does harm: by its requester, an approver, or kubemaint itself. A running
 * request can be cancelled until the host command was issued; after that the reboot is under way and
 * only verification can tell how it ended.
 */
export function cancel(
  request: MaintenanceRequest,
  input: { by: Actor; policy: ApprovalPolicy; reason?: string },
  now: Date,
): TransitionResult {
  if (request.state === 'cancelled') return same(request);
  if (!isActive(request.state)) return notFrom(request, 'cancel');
  if (request.state === 'verifying' || request.hostCommandIssuedAt !== undefined) {
    return refuse(
      'invalid_transition',
      `request ${request.id} issued its host command at ${request.hostCommandIssuedAt ?? '?'}; it can no longer be cancelled, wait for verification`,
    );
  }
  const { by } = input;
  if (
    by.kind === 'person' &&
    personOf(by.id, input.policy) !== personOf(request.requestedBy, input.policy)
  ) {
    const problem = authorisationProblem(by, input.policy);
    if (problem) return refuse('not_authorised', `cannot cancel ${request.id}: ${problem}`);
  }
  return advance(request, 'cancelled', by.id, now, input.reason);
}

/** End a proposal nobody approved in time (the tick calls it on every proposal). */
export function expire(
  request: MaintenanceRequest,
  input: { policy: ApprovalPolicy },
  now: Date,
): TransitionResult {
  if (request.state === 'expired') return same(request);
  if (request.state !== 'proposed')
    return refuse(
      'invalid_transition',
      `request ${request.id} is ${request.state}; only proposals expire`,
    );
  const expiry = expiresAt(request, input.policy);
  if (!expiry || now.getTime() < expiry.getTime()) return same(request);
  const after = formatDuration(input.policy.expiresAfterMs ?? 0);
  return advance(request, 'expired', 'kubemaint', now, `not approved within ${after}`);
}

/**
 * The executor Job was created: approved → running. The approvals are checked again here, so a
 * request edited by hand into `approved` without valid approvals never runs (invariant 2).
 */
export function start(
  request: MaintenanceRequest,
  input: { by: System; policy: ApprovalPolicy; job: string; slot?: string },
  now: Date,
): TransitionResult {
  if (request.state === 'running' && request.job === input.job) return same(request);
  if (request.state !== 'approved') {
    const hint = request.state === 'proposed' ? '; it is not approved yet' : '';
    return notFrom(request, 'start', hint);
  }
  if (!approvalsSatisfy(request, input.policy)) {
    return refuse(
      'not_authorised',
      `request ${request.id} lacks the approvals the policy requires`,
    );
  }
  const patch = { job: input.job, ...(input.slot === undefined ? {} : { slot: input.slot }) };
  return advance(request, 'running', input.by.id, now, undefined, patch);
}

/** The host command was issued: running → verifying. Its time is recorded once (invariant 5). */
export function verifying(
  request: MaintenanceRequest,
  input: { by: System; bootIdBefore?: string; kubeletVersionBefore?: string },
  now: Date,
): TransitionResult {
  if (request.state === 'verifying') return same(request);
  if (request.state !== 'running') return notFrom(request, 'verify');
  const patch: Partial<MaintenanceRequest> = {
    hostCommandIssuedAt: request.hostCommandIssuedAt ?? now.toISOString(),
    ...(input.bootIdBefore === undefined ? {} : { bootIdBefore: input.bootIdBefore }),
    ...(input.kubeletVersionBefore === undefined
      ? {}
      : { kubeletVersionBefore: input.kubeletVersionBefore }),
  };
  return advance(request, 'verifying', input.by.id, now, undefined, patch);
}

/** The node came back as proven by verification: verifying → done. */
export function done(
  request: MaintenanceRequest,
  input: { by: System; proof: string },
  now: Date,
): TransitionResult {
  if (request.state === 'done') return same(request);
  if (request.state !== 'verifying') return notFrom(request, 'complete');
  return advance(request, 'done', input.by.id, now, input.proof);
}

/** Something went wrong: any active state → failed, with a human explanation. */
export function fail(
  request: MaintenanceRequest,
  input: { by: Actor; failure: string },
  now: Date,
): TransitionResult {
  if (request.state === 'failed') return same(request);
  if (!isActive(request.state)) return notFrom(request, 'fail');
  if (input.failure.trim() === '') return refuse('bad_input', 'a failure needs an explanation');
  return advance(request, 'failed', input.by.id, now, input.failure, { failure: input.failure });
}

export type { Actor, ApprovalPolicy, Approver, Person, System } from './approvers.js';
export type { IdentityList } from './approvers.js';
export {
  approvalsSatisfy,
  authorisationProblem,
  expiresAt,
  forceProblem,
  forceSatisfied,
  personOf,
  personsRequired,
  proposeProblem,
  samePerson,
} from './approvers.js';
