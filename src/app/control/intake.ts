/**
 * Requests people typed with their own identity (`kubemaint reboot` on the CLI, or `kubectl create`)
 * arrive without a status: admission has bound them to their requester, and the control plane now
 * decides whether that requester may propose (approvers and `approval.proposers`), whether the node
 * is free, and whether the request itself is well formed. Accepted, the request is a proposal like any
 * other; refused, it ends `rejected` with the reason, so the person sees why.
 */
import { propose, proposeProblem } from '../../core/approval.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { persist } from './persist.js';
import type { NodeView } from './ports.js';
import type { ReconcileDeps } from './deps.js';

/** Accept or refuse one request that has no status yet; `others` are the node's other active requests. */
export async function intake(
  deps: ReconcileDeps,
  node: NodeView,
  others: readonly MaintenanceRequest[],
): Promise<string> {
  const asked = node.request!;
  const now = deps.clock.now();
  const problem = intakeProblem(deps, node, asked, others);
  const result = problem
    ? undefined
    : propose(
        undefined,
        {
          id: asked.id,
          node: asked.node,
          action: asked.action,
          ...(asked.targetVersion ? { targetVersion: asked.targetVersion } : {}),
          reason: asked.reason || `requested by ${asked.requestedBy}`,
          requestedBy: asked.requestedBy,
          ...(asked.campaign ? { campaign: asked.campaign } : {}),
          ...(asked.pool ? { pool: asked.pool } : {}),
        },
        now,
      );
  if (result?.ok) {
    const request: MaintenanceRequest = { ...asked, ...result.request };
    const outcome = await persist(
      deps,
      node,
      { ok: true, changed: true, request },
      { kind: 'proposed', message: request.reason },
    );
    return outcome.status === 'written' ? 'accepted' : 'intake lost a race';
  }
  const why = problem ?? (result && !result.ok ? result.error.message : 'refused');
  const at = now.toISOString();
  const refused: MaintenanceRequest = {
    ...asked,
    state: 'rejected',
    createdAt: asked.createdAt,
    updatedAt: at,
    failure: why,
    history: [{ from: null, to: 'rejected', at, by: 'kubemaint', note: why }],
  };
  await persist(
    deps,
    node,
    { ok: true, changed: true, request: refused },
    { kind: 'rejected', message: `not accepted: ${why}`, warning: true },
  );
  return `refused: ${why}`;
}

function intakeProblem(
  deps: ReconcileDeps,
  node: NodeView,
  asked: MaintenanceRequest,
  others: readonly MaintenanceRequest[],
): string | undefined {
  if (node.missing) return `node ${asked.node} does not exist`;
  // Only the control plane may record a detection (admission refuses anyone else): one without a
  // status is kubemaint's own proposal whose status write was lost, and needs no permission.
  if (asked.origin !== 'detection') {
    const groups = asked.requestedByGroups ?? [];
    const person = { kind: 'person' as const, id: asked.requestedBy, groups };
    const problem = proposeProblem(person, deps.settings.approval);
    if (problem) return problem;
  }
  const busy = others.find((r) => r.id !== asked.id);
  if (busy)
    return `${asked.node} already has request ${busy.id} (${busy.action}, ${busy.state}); let it finish or cancel it first`;
  return undefined;
}
