/**
 * Decisions become transitions here, and only here (ADR 0012). A decision is a MaintenanceApproval
 * object that admission bound to its author: a person recorded it with the CLI (or kubectl), or the
 * control plane recorded it for a Slack user whose signature it verified, or for a policy rule. The
 * control plane applies each decision once, in the order they were made, and writes what came of it
 * into the request's status (`decisions`), so a refusal is visible to the person who asked.
 *
 * Before anything disruptive starts, `backedApprovals` (backed-approvals.ts) checks the request's
 * approvals against the decision objects again: an approval in status that no object backs was not
 * made by anyone (invariant 9).
 */
import {
  approve,
  authorisationProblem,
  cancel,
  forceProblem,
  reject,
  type Approver,
  type Person,
  type TransitionResult,
} from '../../core/approval.js';
import { maskTokens } from '../../core/redact.js';
import {
  isActive,
  type AppliedDecision,
  type Decision,
  type DrainDecision,
  type MaintenanceRequest,
} from '../../core/request.js';
import { persist, type PersistOutcome, type Report } from './persist.js';
import type { NodeView } from './ports.js';
import type { ReconcileDeps } from './deps.js';

const approverOf = (decision: Decision): Approver =>
  decision.by.startsWith('policy:')
    ? { kind: 'policy', rule: decision.by.slice('policy:'.length) }
    : personOf(decision);

const personOf = (decision: Decision): Person => ({
  kind: 'person',
  id: decision.by,
  groups: decision.groups,
});

/** Decisions on `request` that were made but not applied yet, oldest first. */
export function pendingDecisions(
  request: MaintenanceRequest,
  decisions: readonly Decision[],
): Decision[] {
  const applied = new Set((request.decisions ?? []).map((d) => d.name));
  return decisions.filter((d) => d.request === request.id && !applied.has(d.name));
}

interface Applied {
  result: TransitionResult;
  report?: Report;
}

/** One decision as a transition of `request` (pure but for the clock passed in). */
export function applyDecision(
  deps: Pick<ReconcileDeps, 'settings'>,
  request: MaintenanceRequest,
  decision: Decision,
  allDecisions: readonly Decision[],
  now: Date,
): Applied {
  const policy = deps.settings.approval;
  const reason = decision.reason && maskTokens(decision.reason);
  const because = reason ? `: ${reason}` : '';
  switch (decision.decision) {
    case 'approve': {
      const result = approve(request, { approver: approverOf(decision), policy }, now);
      if (!result.ok || !result.changed) return { result };
      const approvals = result.request.approvals.map((a) =>
        a.by === decision.by && a.record === undefined ? { ...a, record: decision.name } : a,
      );
      const approved = result.request.state === 'approved';
      return {
        result: { ...result, request: { ...result.request, approvals } },
        report: {
          kind: 'approved',
          message: approved
            ? `approved by ${decision.by}`
            : `first approval by ${decision.by}; a second approver is needed`,
          approver: decision.by,
        },
      };
    }
    case 'reject':
      return {
        result: reject(
          request,
          { by: personOf(decision), policy, ...(reason ? { reason } : {}) },
          now,
        ),
        report: {
          kind: 'rejected',
          message: `rejected by ${decision.by}${because}`,
          approver: decision.by,
        },
      };
    case 'cancel':
      return {
        result: cancel(
          request,
          { by: personOf(decision), policy, ...(reason ? { reason } : {}) },
          now,
        ),
        report: {
          kind: 'failed',
          reason: 'KubemaintCancelled',
          message: `cancelled by ${decision.by}${because}`,
        },
      };
    case 'wait':
    case 'skip':
    case 'force':
      return drainDecision(request, decision, decision.decision, allDecisions, policy, now);
  }
}

/** An answer to a stalled drain: the running executor reads it from the request. */
function drainDecision(
  request: MaintenanceRequest,
  decision: Decision,
  kind: DrainDecision,
  allDecisions: readonly Decision[],
  policy: ReconcileDeps['settings']['approval'],
  now: Date,
): Applied {
  const refuse = (message: string): Applied => ({
    result: { ok: false, error: { code: 'invalid_transition', message } },
  });
  if (request.state !== 'running')
    return refuse(`request ${request.id} is ${request.state}; there is no drain to decide on`);
  const person = personOf(decision);
  if (decision.decision === 'force') {
    // Forcing past PDBs is as disruptive as the request itself: it needs the same approvals.
    const forcers = allDecisions
      .filter((d) => d.request === request.id && d.decision === 'force')
      .map(approverOf);
    const problem = forceProblem(request, forcers, policy);
    if (problem) return refuse(problem);
  } else {
    // Whoever may approve may answer a stalled drain with wait or skip.
    const problem = authorisationProblem(person, policy);
    if (problem) return refuse(problem);
  }
  const at = now.toISOString();
  const verb =
    decision.decision === 'wait'
      ? 'keep waiting'
      : decision.decision === 'skip'
        ? 'skip this node'
        : 'force the remaining pods out';
  return {
    result: {
      ok: true,
      changed: true,
      request: {
        ...request,
        drainDecision: { decision: kind, by: decision.by, at },
        updatedAt: at,
      },
    },
    report: { kind: 'blocked', message: `${decision.by} decided to ${verb}` },
  };
}

/** The outcome of applying one decision, as the request's status records it. */
function appliedOf(
  decision: Decision,
  applied: Applied,
  request: MaintenanceRequest,
): AppliedDecision {
  if (!applied.result.ok)
    return { name: decision.name, ok: false, message: applied.result.error.message };
  const state = applied.result.request.state;
  // The transition's note says what "still proposed" means after an approval: a second approver
  // is needed. Without it the first approver reads "is proposed" and cannot tell it counted.
  const after = applied.result.request.history;
  const note = after.length > request.history.length ? after.at(-1)?.note : undefined;
  const message = applied.result.changed
    ? `${decision.decision} by ${decision.by}: ${request.id} is ${state}${note ? ` (${note})` : ''}`
    : `${decision.decision} by ${decision.by}: nothing to change, ${request.id} is ${state}`;
  return { name: decision.name, ok: true, message };
}

/**
 * Apply every pending decision on the node's request, one conditional write each, and return the
 * node as it is afterwards (for the rest of the tick) with the outcome of each decision.
 */
export async function applyPending(
  deps: ReconcileDeps,
  node: NodeView,
  decisions: readonly Decision[],
): Promise<{ node: NodeView; applied: AppliedDecision[]; outcome?: PersistOutcome }> {
  let current = node;
  const applied: AppliedDecision[] = [];
  let outcome: PersistOutcome | undefined;
  for (const decision of pendingDecisions(node.request!, decisions)) {
    const request = current.request!;
    const now = deps.clock.now();
    const step = isActive(request.state)
      ? applyDecision(deps, request, decision, decisions, now)
      : {
          result: {
            ok: false as const,
            error: {
              code: 'invalid_transition' as const,
              message: `request ${request.id} is ${request.state}; nothing to ${decision.decision}`,
            },
          },
        };
    const record = appliedOf(decision, step, request);
    const base = step.result.ok ? step.result.request : request;
    const next = {
      ...base,
      decisions: [...(request.decisions ?? []), record],
      updatedAt: now.toISOString(),
    };
    outcome = await persist(
      deps,
      current,
      { ok: true, changed: true, request: next },
      step.result.ok && step.result.changed ? step.report : refusalReport(decision, record),
    );
    applied.push(record);
    if (outcome.status !== 'written') break;
    current = { ...current, request: outcome.request, requestVersion: outcome.resourceVersion };
  }
  return { node: current, applied, ...(outcome ? { outcome } : {}) };
}

/** A refused decision is told like a refused click: the person sees why, and so does the thread. */
function refusalReport(decision: Decision, record: AppliedDecision): Report | undefined {
  if (record.ok) return undefined;
  return {
    kind: 'blocked',
    reason: 'KubemaintDecisionRefused',
    message: `${decision.decision} by ${decision.by} refused: ${record.message}`,
    warning: true,
  };
}
