/**
 * Proof that a node came back (DESIGN §1 step 5). A reboot is proven by a bootID different from the one
 * recorded before the host command, with the node Ready, and, when the reporter agent asked for it,
 * the agent's mark cleared (the host's reboot-required file is gone after the boot); an upgrade by
 * the kubelet reporting the target version, Ready. Job success alone proves nothing: the Job's pod
 * dies with its node. Pure: the caller passes the node's facts and `now`.
 */
import { formatDuration } from './duration.js';
import type { NodeInfo } from './node.js';
import type { MaintenanceRequest } from './request.js';
import { compareKubeVersions, tryParseKubeVersion } from './version.js';

/** What verification reads of a node. */
export type NodeFacts = Pick<NodeInfo, 'ready' | 'bootId' | 'kubeletVersion'>;

/** The reporter agent's reboot mark on the node, when there is one (`since` as it recorded it). */
export interface AgentMark {
  since?: string;
}

export type VerifyOutcome =
  /** `warning`: proven, but something people should know (the host still asks for a reboot). */
  | { result: 'proven'; proof: string; warning?: string }
  | { result: 'waiting'; message: string }
  | { result: 'failed'; message: string };

/** `v1.31.4-eks-abc` and `1.31.4` name the same kubelet release (suffixes do not count). */
function sameRelease(a: string, b: string): boolean {
  const [x, y] = [tryParseKubeVersion(a), tryParseKubeVersion(b)];
  return x !== undefined && y !== undefined && compareKubeVersions(x, y) === 0;
}

export function verifyNode(
  request: MaintenanceRequest,
  node: NodeFacts | undefined,
  verifyingSince: Date,
  timeoutMs: number,
  now: Date,
  agentMark?: AgentMark,
): VerifyOutcome {
  const waited = now.getTime() - verifyingSince.getTime();
  const timedOut = waited > timeoutMs;
  const within = formatDuration(timeoutMs);
  if (!node) {
    return timedOut
      ? { result: 'failed', message: `node ${request.node} is gone from the cluster` }
      : { result: 'waiting', message: `node ${request.node} is not listed` };
  }
  const state = describeNode(node);
  if (request.action === 'reboot') {
    if (!request.bootIdBefore) {
      return {
        result: 'failed',
        message: 'no bootID was recorded before the reboot: cannot prove it',
      };
    }
    const rebooted = node.bootId !== '' && node.bootId !== request.bootIdBefore;
    if (rebooted && node.ready === 'True') {
      const proof = `bootID ${short(request.bootIdBefore)} → ${short(node.bootId)}, Ready`;
      if (!agentMark || !markPredates(agentMark.since, request)) return { result: 'proven', proof };
      // The agent clears its mark on its first check after the boot, if the file is gone.
      if (!timedOut)
        return {
          result: 'waiting',
          message: 'rebooted; waiting for the reporter agent to clear its mark',
        };
      return {
        result: 'proven',
        proof,
        warning:
          `the host still reports reboot-required ${within} after the reboot (the reporter ` +
          'agent kept its mark): the node stays marked and will be proposed again',
      };
    }
    const why = rebooted ? 'rebooted but not Ready yet' : 'bootID unchanged (not rebooted yet)';
    return timedOut
      ? { result: 'failed', message: `node did not come back within ${within}: ${why}; ${state}` }
      : { result: 'waiting', message: why };
  }
  const target = request.targetVersion ?? '';
  const upgraded = sameRelease(node.kubeletVersion, target);
  if (upgraded && node.ready === 'True') {
    return {
      result: 'proven',
      proof: `kubelet ${request.kubeletVersionBefore ?? '?'} → ${node.kubeletVersion}, Ready`,
    };
  }
  const why = upgraded
    ? 'kubelet upgraded but node not Ready yet'
    : `kubelet still ${node.kubeletVersion}, want ${target}`;
  return timedOut
    ? { result: 'failed', message: `upgrade not proven within ${within}: ${why}; ${state}` }
    : { result: 'waiting', message: why };
}

/**
 * Whether a reboot mark set at `since` is the one this request answered: set no later than the host
 * command (or either time unknown). A mark set after it is a new need, not this one. A mark at the
 * very instant of the command (the agent writes whole seconds) cannot come from the host after its
 * reboot, which takes seconds: it is the one that asked.
 */
export function markPredates(since: string | undefined, request: MaintenanceRequest): boolean {
  const set = Date.parse(since ?? '');
  const issued = Date.parse(request.hostCommandIssuedAt ?? '');
  return Number.isNaN(set) || Number.isNaN(issued) || set <= issued;
}

/** One line people can act on: "node is NotReady (Ready=Unknown), bootID 1a2b3c, kubelet v1.30.2". */
export function describeNode(node: NodeFacts): string {
  const readiness = node.ready === 'True' ? 'Ready' : `NotReady (Ready=${node.ready})`;
  return `node is ${readiness}, bootID ${short(node.bootId)}, kubelet ${node.kubeletVersion}`;
}

const short = (id: string): string => (id.length > 8 ? id.slice(0, 8) : id || '(none)');
