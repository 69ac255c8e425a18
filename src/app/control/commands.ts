/**
 * What people ask for, from the CLI or Slack: status, reboot, upgrade, approve, reject, cancel, pause,
 * resume, slots, release, and the answer to a stalled drain. One implementation for both front ends,
 * so an approval is checked on the server the same way wherever it comes from (invariant 2).
 */
import { parseSlotHolder } from '../../core/names.js';
import { propose, proposeProblem, type Person, type ProposeInput } from '../../core/approval.js';
import { maskTokens } from '../../core/redact.js';
import {
  isActive,
  type DecisionKind,
  type DrainDecision,
  type MaintenanceRequest,
} from '../../core/request.js';
import { isRequestId, requestId } from '../../core/request-id.js';
import { isStrictVersion } from '../../core/version.js';
import { nextKubeletStep } from '../../core/skew.js';
import { apiserverBound } from '../../core/apiserver-bound.js';
import { kubeletTargetRefusal } from '../../core/kubelet-target.js';
import { KubemaintError } from '../../errors.js';
import { applyPending } from './decisions.js';
import { allSlots } from './fleet-view.js';
import { persist, type PersistOutcome } from './persist.js';
import type { Clock, ClusterPort, Notifier, NodeView, RandomBytes, SlotView } from './ports.js';
import type { ControlSettings } from './settings.js';
import { suggestName } from './suggest.js';

export interface CommandDeps {
  cluster: ClusterPort;
  notifier: Notifier;
  settings: ControlSettings;
  clock: Pick<Clock, 'now'>;
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
  settings: deps.settings,
});

/** Every node's request (its active one, else its latest), newest change first. */
export async function listRequests(deps: CommandDeps): Promise<MaintenanceRequest[]> {
  const nodes = await deps.cluster.listRequestNodes('all');
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
  const node = await deps.cluster.findRequest(id);
  if (!node?.request) {
    // A refusal (exit 5), as for a request that ended: there is nothing to decide on.
    throw new KubemaintError('request_invalid', `no request ${id}`, {
      hint: 'it may have been replaced by a newer request; `kubemaint status` lists them',
    });
  }
  return node;
}

/** The node `name`, or a usage error (exit 2, as for any argument that names nothing) with a guess. */
export async function findNode(deps: CommandDeps, name: string): Promise<NodeView> {
  const node = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name)
    ? await deps.cluster.getNode(name)
    : undefined;
  if (node) return node;
  const names = (await deps.cluster.listNodes()).map((n) => n.name);
  const guess = suggestName(name, names);
  throw new KubemaintError('usage', `no node \`${clip(name)}\``, {
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

export interface MaintenanceAsk {
  node: string;
  action: 'reboot' | 'upgrade';
  version?: string;
  reason?: string;
  by: Person;
}

/** The proposal `ask` makes (the next kubelet step for an upgrade), or why there is none. */
async function planAsk(
  deps: CommandDeps,
  ask: MaintenanceAsk,
): Promise<{ node: NodeView; input: ProposeInput } | CommandResult> {
  const node = await findNode(deps, ask.node);
  let targetVersion: string | undefined;
  if (ask.action === 'upgrade') {
    if (ask.version !== undefined && !isStrictVersion(ask.version)) {
      throw new KubemaintError('usage', `"${clip(ask.version)}" is not a kubelet version`, {
        hint: 'write it like v1.31.4 (major.minor.patch, nothing else)',
      });
    }
    const apiservers = apiserverBound(await deps.cluster.apiserverFacts()).bound;
    const refusal = ask.version
      ? kubeletTargetRefusal({ kubelet: node.kubeletVersion, apiservers, version: ask.version })
      : undefined;
    if (refusal) {
      throw new KubemaintError('usage', `upgrade ${node.name}: ${refusal.problem}`, {
        hint: refusal.example
          ? `e.g. \`upgrade ${node.name} ${refusal.example}\`, or no version: the next step toward kubelet.target`
          : 'see `kubemaint scan` for what each kubelet needs',
      });
    }
    const step = nextKubeletStep({
      kubelet: node.kubeletVersion,
      apiservers,
      ...(ask.version
        ? { target: ask.version }
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
  const input: ProposeInput = {
    id: requestId(deps.randomBytes(3)),
    node: node.name,
    action: ask.action,
    ...(targetVersion ? { targetVersion } : {}),
    reason: maskTokens(ask.reason?.trim() ?? '') || `requested by ${ask.by.id}`,
    requestedBy: ask.by.id,
    origin: 'person',
    ...(pool ? { pool } : {}),
  };
  return { node, input };
}

/** A proposal made through the control plane (Slack): checked for the propose permission, recorded. */
export async function requestMaintenance(
  deps: CommandDeps,
  ask: MaintenanceAsk,
): Promise<CommandResult> {
  const problem = proposeProblem(ask.by, deps.settings.approval);
  if (problem) return { ok: false, message: problem };
  const planned = await planAsk(deps, ask);
  if ('ok' in planned) return planned;
  const { node, input } = planned;
  const result = propose(node.request, input, deps.clock.now());
  const outcome = await persist(persistDeps(deps), node, result, {
    kind: 'proposed',
    message: result.ok ? result.request.reason : '',
  });
  return outcomeToResult(outcome, `${ask.action} ${node.name}`);
}

/**
 * A proposal made with the person's own identity (the CLI): the request object is created in their
 * name (admission checks it is), and the control plane accepts or refuses it on its next tick.
 */
export async function submitMaintenance(
  deps: CommandDeps,
  ask: MaintenanceAsk,
): Promise<CommandResult> {
  const planned = await planAsk(deps, ask);
  if ('ok' in planned) return planned;
  const { input } = planned;
  const at = deps.clock.now().toISOString();
  const groups = (ask.by.groups ?? []).filter((g) => g.startsWith('k8s:'));
  const request: MaintenanceRequest = {
    ...input,
    ...(groups.length ? { requestedByGroups: groups } : {}),
    state: 'proposed',
    createdAt: at,
    updatedAt: at,
    approvals: [],
    history: [],
  };
  await deps.cluster.submit(request);
  return {
    ok: true,
    message: `${ask.action} ${input.node}: asked as ${request.id}; kubemaint accepts it on its next tick`,
    request,
  };
}

/**
 * A decision made through the control plane (a Slack click or command, whose signature it verified):
 * recorded as a MaintenanceApproval in the person's name, then applied with every other pending
 * decision on the request. The same path the CLI's decisions take on the next tick, so an approval
 * counts the same way wherever it comes from (invariant 2). Deciding twice is one decision.
 */
export async function decideRequest(
  deps: CommandDeps,
  id: string,
  kind: DecisionKind,
  by: Person,
  typed?: string,
): Promise<CommandResult> {
  await findRequest(deps, id);
  const reason = typed && maskTokens(typed);
  const { name } = await deps.cluster.decide({
    request: id,
    by: by.id,
    decision: kind,
    groups: [...(by.groups ?? [])],
    ...(by.team ? { team: by.team } : {}),
    ...(reason ? { reason } : {}),
  });
  const reconcileDeps = { ...deps, clusterName: deps.settings.cluster };
  for (let attempt = 1; ; attempt++) {
    const node = await findRequest(deps, id);
    const done = node.request!.decisions?.find((d) => d.name === name);
    if (done) return { ok: done.ok, message: done.message, request: node.request! };
    const {
      applied,
      outcome,
      node: after,
    } = await applyPending(reconcileDeps, node, await deps.cluster.decisions(id));
    const mine = applied.find((d) => d.name === name);
    if (mine && outcome?.status === 'written')
      return { ok: mine.ok, message: mine.message, request: after.request! };
    // Someone wrote the request first (two approvers clicking at once, a tick): read it again.
    if (attempt >= LOST_RACE_RETRIES)
      return {
        ok: false,
        message: `${kind} ${id}: the request changed while we wrote it; look at it again and retry`,
      };
  }
}

/**
 * A decision made with the person's own identity (the CLI): recorded as a MaintenanceApproval in
 * their name (admission checks that it is), for the control plane to apply. Refused at once only
 * when there is nothing left to decide.
 */
export async function recordDecision(
  deps: CommandDeps,
  id: string,
  kind: DecisionKind,
  by: Person,
  typed?: string,
): Promise<{ ok: true; name: string; created: boolean } | CommandResult> {
  const node = await findRequest(deps, id);
  const request = node.request!;
  if (!isActive(request.state))
    return { ok: false, message: `request ${id} is ${request.state}; nothing to ${kind}`, request };
  const reason = typed && maskTokens(typed);
  const recorded = await deps.cluster.decide({
    request: id,
    by: by.id,
    decision: kind,
    groups: [...(by.groups ?? [])],
    ...(reason ? { reason } : {}),
  });
  return { ok: true, ...recorded };
}

/** A command that loses its conditional write decides again this many times before saying so. */
const LOST_RACE_RETRIES = 3;

export const approveRequest = (deps: CommandDeps, id: string, by: Person) =>
  decideRequest(deps, id, 'approve', by);

export const rejectRequest = (deps: CommandDeps, id: string, by: Person, typed?: string) =>
  decideRequest(deps, id, 'reject', by, typed);

export const cancelRequest = (deps: CommandDeps, id: string, by: Person, typed?: string) =>
  decideRequest(deps, id, 'cancel', by, typed);

/** An answer to a stalled drain; the running executor reads it from the request. */
export const decideDrain = (deps: CommandDeps, id: string, decision: DrainDecision, by: Person) =>
  decideRequest(deps, id, decision, by);

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

/** Every configured slot, free ones too (a Lease exists once an executor first took it). */
export async function listSlots(deps: CommandDeps): Promise<SlotView[]> {
  return allSlots(await deps.cluster.listSlots(), deps.settings.lock.concurrency);
}

/** Free a slot by hand, refused while its holder's request is still active and its node exists. */
export async function releaseSlot(
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
  const holder = parseSlotHolder(found.holder);
  const held = holder ? await deps.cluster.findRequest(holder.requestId) : undefined;
  const holderRequest = held?.request;
  const nodeName = holder?.node;
  const id = holder?.requestId;
  if (
    holderRequest?.node === nodeName &&
    !held?.missing &&
    holderRequest &&
    isActive(holderRequest.state)
  ) {
    return {
      ok: false,
      message: `${slot} is held by active request ${id} on ${nodeName}; cancel the request instead`,
    };
  }
  await deps.cluster.releaseSlot(slot, found.holder);
  return { ok: true, message: `released ${slot} (was held by ${found.holder})` };
}

const clip = (text: string): string => (text.length > 64 ? `${text.slice(0, 61)}...` : text);
