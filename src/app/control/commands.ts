/**
 * What people ask for, from the CLI or Slack: status, reboot, upgrade, approve, reject, cancel, pause,
 * resume, locks, release, and the answer to a stalled drain. One implementation for both front ends,
 * so an approval is checked on the server the same way wherever it comes from (invariant 2).
 */
import {
  approve,
  cancel,
  propose,
  reject,
  type Person,
  type TransitionResult,
} from '../../core/approval.js';
import { LABEL_STATE } from '../../core/names.js';
import { maskTokens } from '../../core/redact.js';
import { isActive, type DrainDecision, type MaintenanceRequest } from '../../core/request.js';
import { isRequestId, requestId } from '../../core/request-id.js';
import { isStrictVersion } from '../../core/version.js';
import { nextKubeletStep } from '../../core/skew.js';
import { KubemaintError } from '../../errors.js';
import { persist, type PersistOutcome, type Report } from './persist.js';
import type { Clock, ClusterPort, Notifier, NodeView, RandomBytes, SlotView } from './ports.js';
import type { ControlSettings } from './settings.js';
import { suggestName } from './suggest.js';

export interface CommandDeps {
  cluster: ClusterPort;
  notifier: Notifier;
  settings: ControlSettings;
  clock: Clock;
  randomBytes: RandomBytes;
}

export interface CommandResult {
  ok: boolean;
  message: string;
  request?: MaintenanceRequest;
}

const persistDeps = (deps: CommandDeps) => ({
  cluster: deps.cluster,
  notifier: deps.notifier,
  clusterName: deps.settings.cluster,
});

/** Every node that carries a request (any state), newest change first. */
export async function listRequests(deps: CommandDeps): Promise<MaintenanceRequest[]> {
  const nodes = await deps.cluster.listNodes(LABEL_STATE);
  return nodes
    .map((n) => n.request)
    .filter((r): r is MaintenanceRequest => r !== undefined)
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

async function findRequest(deps: CommandDeps, id: string): Promise<NodeView> {
  if (!isRequestId(id)) {
    throw new KubemaintError('usage', `"${clip(id)}" is not a request id`, {
      hint: 'request ids look like r-7f3a9c; `kubemaint status` lists them',
    });
  }
  const nodes = await deps.cluster.listNodes(LABEL_STATE);
  const node = nodes.find((n) => n.request?.id === id);
  if (!node) {
    throw new KubemaintError('not_found', `no request ${id}`, {
      hint: 'it may have been replaced by a newer request; `kubemaint status` lists them',
    });
  }
  return node;
}

async function findNode(deps: CommandDeps, name: string): Promise<NodeView> {
  const node = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name)
    ? await deps.cluster.getNode(name)
    : undefined;
  if (node) return node;
  const names = (await deps.cluster.listNodes()).map((n) => n.name);
  const guess = suggestName(name, names);
  throw new KubemaintError('not_found', `no node \`${clip(name)}\``, {
    hint: guess ? `did you mean \`${guess}\`?` : 'list nodes with `kubectl get nodes`',
  });
}

function outcomeToResult(outcome: PersistOutcome, what: string): CommandResult {
  switch (outcome.status) {
    case 'written':
      return {
        ok: true,
        message: `${what}: ${outcome.request.id} is ${outcome.request.state}`,
        request: outcome.request,
      };
    case 'unchanged':
      return {
        ok: true,
        message: `${what}: nothing to change, ${outcome.request.id} is ${outcome.request.state}`,
        request: outcome.request,
      };
    case 'lost-race':
      return {
        ok: false,
        message: `${what}: the request changed while we wrote it; look at it again and retry`,
      };
    case 'refused':
      return { ok: false, message: outcome.message };
  }
}

export async function requestMaintenance(
  deps: CommandDeps,
  input: {
    node: string;
    action: 'reboot' | 'upgrade';
    version?: string;
    reason?: string;
    by: Person;
  },
): Promise<CommandResult> {
  const node = await findNode(deps, input.node);
  let targetVersion: string | undefined;
  if (input.action === 'upgrade') {
    if (input.version !== undefined && !isStrictVersion(input.version)) {
      throw new KubemaintError('usage', `"${clip(input.version)}" is not a kubelet version`, {
        hint: 'write it like v1.31.4 (major.minor.patch, nothing else)',
      });
    }
    const apiservers = await deps.cluster.apiserverVersions();
    const step = nextKubeletStep({
      kubelet: node.kubeletVersion,
      apiservers,
      ...(input.version
        ? { target: input.version }
        : deps.settings.kubelet.target
          ? { target: deps.settings.kubelet.target }
          : {}),
    });
    if (!step) {
      return {
        ok: false,
        message: `${node.name}: kubelet ${node.kubeletVersion} is already at its target; nothing to upgrade`,
      };
    }
    targetVersion = step.version;
  }
  const pool = deps.settings.lock.poolLabel ? node.labels[deps.settings.lock.poolLabel] : undefined;
  const result = propose(
    node.request,
    {
      id: requestId(deps.randomBytes(3)),
      node: node.name,
      action: input.action,
      ...(targetVersion ? { targetVersion } : {}),
      reason: maskTokens(input.reason?.trim() ?? '') || `requested by ${input.by.id}`,
      requestedBy: input.by.id,
      ...(pool ? { pool } : {}),
    },
    deps.clock.now(),
  );
  const outcome = await persist(persistDeps(deps), node, result, {
    kind: 'proposed',
    message: result.ok ? result.request.reason : '',
  });
  return outcomeToResult(outcome, `${input.action} ${node.name}`);
}

/** Find request `id`, apply one state-machine transition to it and write it back with its report. */
async function transitionRequest(
  deps: CommandDeps,
  id: string,
  verb: string,
  transition: (request: MaintenanceRequest, now: Date) => TransitionResult,
  report: (request: MaintenanceRequest) => Report,
): Promise<CommandResult> {
  let node = await findRequest(deps, id);
  const decidedOn = node.request!.state;
  for (let attempt = 1; ; attempt++) {
    const result = transition(node.request!, deps.clock.now());
    const outcome = await persist(
      persistDeps(deps),
      node,
      result,
      result.ok ? report(result.request) : undefined,
    );
    if (outcome.status !== 'lost-race' || attempt >= LOST_RACE_RETRIES)
      return outcomeToResult(outcome, `${verb} ${id}`);
    // Someone wrote the request first (two approvers clicking at once, a tick). Decide again on
    // what it is now when that is still the state the person saw, or when the answer is already
    // theirs (an approval that the other click made): otherwise they must look again.
    node = await findRequest(deps, id);
    const again = transition(node.request!, deps.clock.now());
    if (again.ok && !again.changed)
      return outcomeToResult({ status: 'unchanged', request: again.request }, `${verb} ${id}`);
    if (node.request!.state !== decidedOn)
      return outcomeToResult(outcome, `${verb} ${id} (it is ${node.request!.state} now)`);
  }
}

/** A command that loses its conditional write decides again this many times before saying so. */
const LOST_RACE_RETRIES = 3;

const because = (reason?: string): string => (reason ? `: ${reason}` : '');

export async function approveRequest(
  deps: CommandDeps,
  id: string,
  by: Person,
): Promise<CommandResult> {
  const policy = deps.settings.approval;
  return transitionRequest(
    deps,
    id,
    'approve',
    (request, now) => approve(request, { approver: by, policy }, now),
    (request) => ({
      kind: 'approved',
      message:
        request.state === 'approved'
          ? `approved by ${by.id}`
          : `first approval by ${by.id}; a second approver is needed`,
      approver: by.id,
    }),
  );
}

export async function rejectRequest(
  deps: CommandDeps,
  id: string,
  by: Person,
  typed?: string,
): Promise<CommandResult> {
  const policy = deps.settings.approval;
  const reason = typed && maskTokens(typed);
  return transitionRequest(
    deps,
    id,
    'reject',
    (request, now) => reject(request, { by, policy, ...(reason ? { reason } : {}) }, now),
    () => ({
      kind: 'rejected',
      message: `rejected by ${by.id}${because(reason)}`,
      approver: by.id,
    }),
  );
}

export async function cancelRequest(
  deps: CommandDeps,
  id: string,
  by: Person,
  typed?: string,
): Promise<CommandResult> {
  const policy = deps.settings.approval;
  const reason = typed && maskTokens(typed);
  return transitionRequest(
    deps,
    id,
    'cancel',
    (request, now) => cancel(request, { by, policy, ...(reason ? { reason } : {}) }, now),
    () => ({
      kind: 'failed',
      reason: 'KubemaintCancelled',
      message: `cancelled by ${by.id}${because(reason)}`,
    }),
  );
}

/** An approver's answer to a stalled drain; the running executor reads it from the request. */
export async function decideDrain(
  deps: CommandDeps,
  id: string,
  decision: DrainDecision,
  by: Person,
): Promise<CommandResult> {
  const node = await findRequest(deps, id);
  const request = node.request!;
  const problem = authorised(deps, by);
  if (problem) return { ok: false, message: problem };
  if (request.state !== 'running')
    return {
      ok: false,
      message: `request ${id} is ${request.state}; there is no drain to decide on`,
    };
  const now = deps.clock.now().toISOString();
  const updated: MaintenanceRequest = {
    ...request,
    drainDecision: { decision, by: by.id, at: now },
    updatedAt: now,
  };
  const outcome = await persist(
    persistDeps(deps),
    node,
    { ok: true, changed: true, request: updated },
    {
      kind: 'blocked',
      message: `${by.id} decided to ${decision === 'wait' ? 'keep waiting' : decision === 'skip' ? 'skip this node' : 'force the remaining pods out'}`,
    },
  );
  return outcomeToResult(outcome, `drain decision for ${id}`);
}

function authorised(deps: CommandDeps, by: Person): string | undefined {
  const policy = deps.settings.approval;
  if (policy.users.includes(by.id) || (by.groups ?? []).some((g) => policy.groups.includes(g)))
    return undefined;
  return `${by.id} is not an approver`;
}

export async function setPause(
  deps: CommandDeps,
  paused: boolean,
  by: Person,
  typed?: string,
): Promise<CommandResult> {
  const problem = authorised(deps, by);
  if (problem) return { ok: false, message: problem };
  const reason = typed && maskTokens(typed);
  await deps.cluster.writePause({
    paused,
    by: by.id,
    at: deps.clock.now().toISOString(),
    ...(reason ? { reason } : {}),
  });
  return {
    ok: true,
    message: paused ? `paused by ${by.id}${reason ? `: ${reason}` : ''}` : `resumed by ${by.id}`,
  };
}

export async function listLocks(deps: CommandDeps): Promise<SlotView[]> {
  return deps.cluster.listSlots();
}

/** Free a slot by hand, refused while its holder's request is still active and its node exists. */
export async function releaseLock(
  deps: CommandDeps,
  slot: string,
  by: Person,
): Promise<CommandResult> {
  const problem = authorised(deps, by);
  if (problem) return { ok: false, message: problem };
  const slots = await deps.cluster.listSlots();
  const found = slots.find((s) => s.name === slot);
  if (!found)
    return {
      ok: false,
      message: `no slot ${clip(slot)}; slots are ${slots.map((s) => s.name).join(', ') || 'not created yet'}`,
    };
  if (!found.holder) return { ok: true, message: `${slot} is already free` };
  const [nodeName, id] = found.holder.split('/');
  const node = nodeName ? await deps.cluster.getNode(nodeName) : undefined;
  const holderRequest = node?.request;
  if (holderRequest !== undefined && holderRequest.id === id && isActive(holderRequest.state)) {
    return {
      ok: false,
      message: `${slot} is held by active request ${id} on ${nodeName}; cancel the request instead`,
    };
  }
  await deps.cluster.releaseSlot(slot, found.holder);
  return { ok: true, message: `released ${slot} (was held by ${found.holder})` };
}

const clip = (text: string): string => (text.length > 64 ? `${text.slice(0, 61)}...` : text);
