/**
 * A node that stops being Ready while its executor works on it, before any host command: powered off,
 * crashed, or cut off from the apiserver (Ready=Unknown), or its kubelet says it is not ready
 * (Ready=False). The executor's pod is on that node, so it is gone or cannot reach the apiserver, and
 * its Job stays "active" for as long as the node is silent: nothing else would ever end the request.
 * After the action's node timeout (the time a node may take to come back after its host command) the
 * control plane gives up waiting and fails the request, leaving the node cordoned: its state is unknown.
 */
import { formatDuration } from './duration.js';
import type { NodeView } from './node.js';
import type { MaintenanceRequest } from './request.js';
import { describeNode } from './verify.js';

/** Why the request is failed, or undefined while the node is Ready or has not been gone long enough. */
export function nodeLostWhileRunning(
  node: Pick<NodeView, 'ready' | 'readySince' | 'bootId' | 'kubeletVersion'>,
  request: Pick<MaintenanceRequest, 'history' | 'hostCommandIssuedAt'>,
  timeoutMs: number,
  now: Date,
): string | undefined {
  if (node.ready === 'True' || request.hostCommandIssuedAt) return undefined;
  // Counted from the later of the Ready change and the start of the run: a node that was already not
  // Ready when the executor started gets the whole timeout too.
  const started = Date.parse(request.history.findLast((h) => h.to === 'running')?.at ?? '');
  const changed = Date.parse(node.readySince ?? '');
  const since = Math.max(
    Number.isNaN(started) ? -Infinity : started,
    Number.isNaN(changed) ? -Infinity : changed,
  );
  if (!Number.isFinite(since) || now.getTime() - since < timeoutMs) return undefined;
  const silent =
    node.ready === 'Unknown'
      ? 'stopped reporting (powered off, crashed or cut off)'
      : 'is not Ready';
  return (
    `node ${silent} for ${formatDuration(now.getTime() - since)} while the executor worked on it, ` +
    `before any host command: kubemaint ran none; ${describeNode(node)}`
  );
}
