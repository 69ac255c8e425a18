/**
 * The re-check before anything disruptive starts (invariant 9): the request's approvals against the
 * decision objects admission bound to their authors. An approval in status that no object backs was
 * not made by anyone. A file of its own so that mutation testing (`npm run mutate`) takes it whole.
 */
import type { Decision, MaintenanceRequest } from '../../core/request.js';

/**
 * The approvals of `request` that a decision object backs: same author, `approve`, same request.
 * Anything else in status was written by someone who could write status but made no decision.
 */
export function backedApprovals(
  request: MaintenanceRequest,
  decisions: readonly Decision[],
): { backed: MaintenanceRequest; forged: string[] } {
  const byName = new Map(decisions.map((d) => [d.name, d]));
  const forged: string[] = [];
  const approvals = request.approvals.filter((a) => {
    const d = a.record === undefined ? undefined : byName.get(a.record);
    const ok =
      d !== undefined && d.by === a.by && d.decision === 'approve' && d.request === request.id;
    if (!ok) forged.push(a.by);
    return ok;
  });
  return { backed: { ...request, approvals }, forged };
}
