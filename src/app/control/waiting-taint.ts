/**
 * The waiting taint kept in step with the requests (core/waiting-taint.ts, `waitingTaint:` in the
 * config). Every write of a request goes through persist.ts, which calls `followRequest`: a request
 * that starts waiting (proposed) taints its node, one that stops waiting — it starts running, or
 * ends rejected, expired, cancelled or failed — takes the taint away. A write can succeed and the
 * node write after it not (an API error, a crash in between), so each skew scan, which reads every
 * node anyway (and is the first tick of every serve), corrects every node that disagrees: a taint
 * without a waiting request goes, also after the feature was turned off.
 */
import {
  hasWaitingTaint,
  isWaiting,
  wantsWaitingTaint,
  type NodeTaint,
  type WaitingTaintSettings,
} from '../../core/waiting-taint.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { ClusterPort, NodeView } from './ports.js';

export interface WaitingTaintDeps {
  cluster: Pick<ClusterPort, 'setWaitingTaint'>;
  settings?: { waitingTaint?: WaitingTaintSettings };
}

/**
 * After `after` was written: taint or untaint its node when it started or stopped waiting. `before`
 * is what was known before the write (the stored request, and the node's taints when the view was
 * read from the node); with the taints known, the node is compared, not the transition. A failure
 * is left to the next skew scan: the request is written, and a taint is a preference.
 */
export async function followRequest(
  deps: WaitingTaintDeps,
  before: { request?: MaintenanceRequest | undefined; taints?: readonly NodeTaint[] } | undefined,
  after: MaintenanceRequest,
): Promise<void> {
  const settings = deps.settings?.waitingTaint;
  // Off, nothing is written on the way; the skew scan removes what an earlier config left.
  if (!settings?.enabled) return;
  const want = wantsWaitingTaint(settings, after);
  if (before?.taints !== undefined) {
    if (hasWaitingTaint(before.taints, settings.key) === want) return;
  } else if (before?.request?.id === after.id && isWaiting(before.request) === want) return;
  await deps.cluster.setWaitingTaint(after.node, settings.key, want).catch(() => undefined);
}

/** A skew scan's correction of every node read: one line per node changed. */
export async function sweepWaitingTaints(
  deps: WaitingTaintDeps,
  nodes: readonly NodeView[],
): Promise<string[]> {
  const settings = deps.settings?.waitingTaint;
  if (!settings) return [];
  const lines: string[] = [];
  for (const node of nodes) {
    if (node.missing || node.taints === undefined) continue;
    const want = wantsWaitingTaint(settings, node.request, node.requestAccepted !== false);
    if (hasWaitingTaint(node.taints, settings.key) === want) continue;
    try {
      if (await deps.cluster.setWaitingTaint(node.name, settings.key, want))
        lines.push(
          `${node.name}: waiting taint ${want ? 'added' : `removed (${why(node, settings)})`}`,
        );
    } catch (error) {
      lines.push(`${node.name}: waiting taint not corrected: ${(error as Error).message}`);
    }
  }
  return lines;
}

function why(node: NodeView, settings: WaitingTaintSettings): string {
  if (!settings.enabled) return 'waitingTaint is off';
  return node.request ? `its request is ${node.request.state}` : 'no request';
}
