/**
 * Handing a node back after maintenance, or after a failure before the host command: uncordon only
 * what kubemaint cordoned (invariant 4), release the slot, clear a reboot mark the reboot answered,
 * record the maintenance and the labels people asked for (`nodeLabels.after`).
 */
import { allEnded } from '../../all-ended.js';
import { slotHolder } from '../../core/names.js';
import { fail } from '../../core/approval.js';
import {
  ANN_LAST_MAINTENANCE,
  ANN_REBOOT_REQUIRED_PACKAGES,
  ANN_REBOOT_REQUIRED_REPORTER,
  ANN_REBOOT_REQUIRED_SINCE,
  REPORTER_AGENT,
} from '../../core/names.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { describeNode, markPredates } from '../../core/verify.js';
import { persist } from './persist.js';
import type { NodeView } from './ports.js';
import type { ReconcileDeps } from './deps.js';

/** The control plane as the actor of the transitions it makes itself. */
export const SYSTEM = { kind: 'system', id: 'kubemaint' } as const;

/**
 * Undo what kubemaint did to the node: uncordon only if kubemaint cordoned it (invariant 4),
 * release the slot, and after a proven reboot clear a reboot mark that predates it.
 */
export async function restoreNode(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  options: { clearMark: boolean; done: boolean; releaseSlot?: boolean },
): Promise<void> {
  const uncordon =
    request.cordonedByUs === true && request.wasCordoned !== true && node.unschedulable;
  const labels: Record<string, string | null> = {};
  const annotations: Record<string, string | null> = {};
  if (options.done) {
    annotations[ANN_LAST_MAINTENANCE] = JSON.stringify(lastMaintenance(request, deps.clock.now()));
    // Also on a node that was cordoned before kubemaint came (kured#1328 skips it there).
    Object.assign(labels, deps.settings.nodeLabels?.after ?? {});
  }
  // The agent's own mark is left to the agent: it clears it when the host's file is gone, and a
  // mark it keeps after the reboot is a need that is still there.
  const agents = node.annotations[ANN_REBOOT_REQUIRED_REPORTER] === REPORTER_AGENT;
  if (
    options.clearMark &&
    !agents &&
    markPredates(node.annotations[ANN_REBOOT_REQUIRED_SINCE], request)
  ) {
    labels[deps.settings.detection.rebootLabel] = null;
    annotations[ANN_REBOOT_REQUIRED_SINCE] = null;
    annotations[ANN_REBOOT_REQUIRED_PACKAGES] = null;
    annotations[ANN_REBOOT_REQUIRED_REPORTER] = null;
  }
  // The slot and the node are two objects: both writes at once, each on the way from a node's proof
  // to the next node's start (issue 34). Dispatch counts slots by the active requests, so a slot
  // given back before the uncordon lands lets no other node start early. Both end before a failure
  // is thrown: the step ends with nothing under way.
  await allEnded([
    deps.cluster.patchNode(node.name, {
      ...(uncordon ? { unschedulable: null } : {}),
      labels,
      annotations,
    }),
    options.releaseSlot !== false ? releaseSlotOf(deps, request) : undefined,
  ]);
}

/** Free the request's slot, if it still holds one (a no-op when someone else holds it now). */
export async function releaseSlotOf(
  deps: Pick<ReconcileDeps, 'cluster'>,
  request: MaintenanceRequest,
): Promise<void> {
  if (request.slot)
    await deps.cluster.releaseSlot(request.slot, slotHolder(request.node, request.id));
}

const lastMaintenance = (request: MaintenanceRequest, now: Date) => ({
  request: request.id,
  action: request.action,
  ...(request.targetVersion ? { version: request.targetVersion } : {}),
  at: now.toISOString(),
});

/** A failure before the host command: the node is safe to hand back, so hand it back. */
export async function failAndRestore(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  why: string,
): Promise<void> {
  await restoreNode(deps, node, request, { clearMark: false, done: false });
  const fresh = (await deps.cluster.getNode(node.name)) ?? node;
  const state = `${describeNode(fresh)}${fresh.unschedulable ? ', cordoned' : ', schedulable'}`;
  const result = fail(request, { by: SYSTEM, failure: `${why}; ${state}` }, deps.clock.now());
  await persist(deps, fresh, result, {
    kind: 'failed',
    message: `${why}; ${state}`,
    warning: true,
  });
}

/**
 * A failure after which the node's state is unknown (it never came back after its host command, or
 * went silent while its executor worked): said, and the node left cordoned for a person to look at;
 * the slot lapses at its TTL.
 */
export async function failLeftCordoned(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  why: string,
): Promise<void> {
  const result = fail(
    request,
    { by: SYSTEM, failure: `${why}; left cordoned for a person to look at` },
    deps.clock.now(),
  );
  await persist(deps, node, result, { kind: 'failed', message: why, warning: true });
}
