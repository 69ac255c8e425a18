/**
 * A request whose host command was issued (DESIGN §1 step 5): wait for the proof that the node came
 * back (core/verify.ts), then hand the node back and record the maintenance, holding the slot for
 * `slot.releaseDelay` first when one is set. A node that does not come back is reported, left
 * cordoned (invariant 8).
 */
import { done } from '../../core/approval.js';
import { formatDuration } from '../../core/duration.js';
import {
  ANN_REBOOT_REQUIRED_REPORTER,
  ANN_REBOOT_REQUIRED_SINCE,
  REPORTER_AGENT,
} from '../../core/names.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { verifyNode, type AgentMark } from '../../core/verify.js';
import { recordObserved } from './durations.js';
import { beginAfterReady, reconcileAfterReady } from './hook-steps.js';
import { hookOf } from './hooks.js';
import { announce, persist, tell } from './persist.js';
import type { NodeView } from './ports.js';
import type { ReconcileDeps } from './deps.js';
import { failLeftCordoned, releaseSlotOf, restoreNode, SYSTEM } from './restore.js';

export async function reconcileVerifying(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
): Promise<string> {
  const now = deps.clock.now();
  if (request.proven) return releaseAfterDelay(deps, node, request, request.proven, now);
  // The node was proven back and its afterReady hook runs (hook-steps.ts).
  const afterReady = request.hooks?.afterReady;
  if (afterReady?.state === 'running') return reconcileAfterReady(deps, node, request, afterReady);
  if (!request.announced?.includes('host')) {
    // Said once, then verification goes on from the next tick on the node as it is then.
    const verb = request.action === 'reboot' ? 'rebooting' : 'upgrading';
    await announce(deps, node, request, 'host', {
      kind: verb,
      message:
        request.action === 'reboot'
          ? `reboot issued; waiting for the node to come back with a new boot id`
          : `kubelet upgrade to ${request.targetVersion ?? '?'} issued; waiting for it to report`,
    });
    return verb;
  }
  const since = new Date(request.hostCommandIssuedAt ?? request.updatedAt);
  const timeout = deps.settings.nodeTimeoutMs[request.action];
  const outcome = verifyNode(
    request,
    node,
    since,
    timeout,
    now,
    agentMarkOn(node, deps.settings.detection.rebootLabel),
  );
  if (outcome.result === 'waiting') return outcome.message;
  if (outcome.result === 'failed') {
    // After the host command the node's state is unknown: leave it cordoned and say so.
    await failLeftCordoned(deps, node, request, outcome.message);
    return 'failed';
  }
  const proof = outcome.warning ? `${outcome.proof}; but ${outcome.warning}` : outcome.proof;
  // Said, and what this took recorded for the next window-fit decision of its action and pool
  // (ADR 0017): neither throws.
  const news = afterReady
    ? undefined
    : Promise.all([
        tell(deps, { ...request, updatedAt: now.toISOString() }, { kind: 'back', message: proof }),
        recordObserved(deps, request, now),
      ]);
  // Before kubemaint hands the node back, a person's check on it (ADR 0021).
  if (news && hookOf(deps, 'afterReady')) {
    await news;
    return beginAfterReady(deps, node, request, proof);
  }
  const delayMs = deps.settings.lock.releaseDelayMs ?? 0;
  // The node is handed back while the news goes out: the two do not depend on each other, and both
  // lie between the proof and the next node's start (issue 34). The step ends with neither under way.
  // The request's write below is conditional on the request as this pass read it, which the
  // restore (node and slot) does not change: no second read of the node.
  try {
    await restoreNode(deps, node, request, {
      clearMark: request.action === 'reboot',
      done: true,
      releaseSlot: delayMs === 0,
    });
  } finally {
    await news;
  }
  if (delayMs > 0) {
    // Back in service now; the slot stays taken (the request stays active, so dispatch counts it)
    // until the delay has passed without trouble.
    const at = now.toISOString();
    const warning = outcome.warning !== undefined;
    const soaking = {
      ...request,
      backAt: at,
      proven: { at, proof, ...(warning ? { warning } : {}) },
    };
    await persist(deps, node, { ok: true, changed: true, request: soaking });
    return `back; its slot is held ${formatDuration(delayMs)} (slot.releaseDelay)`;
  }
  const back = { ...request, backAt: now.toISOString() };
  return finishDone(deps, node, back, proof, now, outcome.warning !== undefined);
}

/** The end of `slot.releaseDelay`: hand the slot on and record the request done. */
async function releaseAfterDelay(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  proven: NonNullable<MaintenanceRequest['proven']>,
  now: Date,
): Promise<string> {
  const until = Date.parse(proven.at) + (deps.settings.lock.releaseDelayMs ?? 0);
  if (now.getTime() < until) return `back; slot held until ${new Date(until).toISOString()}`;
  await releaseSlotOf(deps, request);
  return finishDone(deps, node, request, proven.proof, now, proven.warning === true);
}

/** Record the request done, written against `node` as last read. */
async function finishDone(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  proof: string,
  now: Date,
  warning: boolean,
): Promise<string> {
  const { proven: _soaked, ...finished } = request;
  const result = done(finished, { by: SYSTEM, proof }, now);
  const durationMs = now.getTime() - Date.parse(request.createdAt);
  await persist(deps, node, result, {
    kind: 'done',
    message: proof,
    durationMs,
    ...(warning ? { warning: true } : {}),
  });
  return 'done';
}

/** The reporter agent's mark, if the node carries one (the agent clears it, not kubemaint). */
function agentMarkOn(node: NodeView, rebootLabel: string): AgentMark | undefined {
  if (node.labels[rebootLabel] !== 'true') return undefined;
  if (node.annotations[ANN_REBOOT_REQUIRED_REPORTER] !== REPORTER_AGENT) return undefined;
  const since = node.annotations[ANN_REBOOT_REQUIRED_SINCE];
  return since === undefined ? {} : { since };
}
