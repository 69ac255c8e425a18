/**
 * The executor Job's step sequence (DESIGN §1 step 4): check the request → take a slot → mark the
 * request running → cordon → drain → record the bootID → mark the host command issued → issue it.
 * Every step reads the cluster first, so a re-run after a crash resumes where the last run stopped, and
 * the host command is guarded by `hostCommandIssuedAt`, written with a conditional write BEFORE the
 * command runs: a re-run never issues it twice (invariant 5). Returns an exit code, never exits.
 */
import { EXIT, type ExitCode } from '../../core/exit-codes.js';
import { KubemaintError } from '../../errors.js';
import { cordon } from './cordon.js';
import { waitAsAsked } from './delay.js';
import { drainNode, type DrainReport } from './drain.js';
import { drainTimeoutEvents } from './drain-timeout.js';
import type { ExecutorInput, ExecutorOutcome, ExecutorPorts } from './executor-types.js';
import { finishBlocked, giveBack, issueHostCommand } from './executor-finish.js';
import { rebootActions, upgradeActions, type HostAction } from './host.js';
import { checkRequest, RequestHandle, transition } from './request-state.js';
import { settingsForSlots } from './settings.js';
import { acquireSlot, holderOf, keepRenewing, parseHolder } from './slots.js';
import { throttled } from './throttle.js';

export type { ExecutorInput, ExecutorOutcome, ExecutorPorts } from './executor-types.js';

const outcome = (exitCode: ExitCode, message: string, drain?: DrainReport): ExecutorOutcome => ({
  exitCode,
  message,
  ...(drain ? { drain } : {}),
});

export async function runExecutor(
  ports: ExecutorPorts,
  input: ExecutorInput,
): Promise<ExecutorOutcome> {
  const { nodes, requests, clock, log } = ports;
  // Both reads at once: one round trip less before the first step, on every node's critical path.
  const [node, stored] = await Promise.all([
    nodes.getNode(input.node),
    requests.get(input.requestId),
  ]);
  if (!node) return outcome(EXIT.requestInvalid, `node ${input.node} does not exist`);
  const checked = checkRequest(stored, input.node, input.requestId);
  if (!checked.ok) return outcome(EXIT.requestInvalid, checked.why);
  const request = checked.request;
  if (request.hostCommandIssuedAt) {
    return outcome(
      EXIT.ok,
      `host command already issued at ${request.hostCommandIssuedAt}; nothing to do`,
    );
  }
  if (request.state !== 'approved' && request.state !== 'running') {
    return outcome(EXIT.requestInvalid, `request ${request.id} is ${request.state}, not approved`);
  }
  // Decide the host actions before touching anything: a bad version or template changes nothing.
  let actions: HostAction[];
  try {
    actions =
      request.action === 'upgrade'
        ? upgradeActions(input.settings, request.targetVersion, node)
        : rebootActions(input.settings);
  } catch (error) {
    if (error instanceof KubemaintError && error.code === 'request_invalid') {
      return outcome(EXIT.requestInvalid, error.message);
    }
    throw error;
  }

  const slots = settingsForSlots(input.settings);
  const holder = holderOf(input.node, request.id);
  const slotDeps = {
    leases: ports.leases,
    clock,
    isHolderLive: async (other: string) => {
      const parsed = parseHolder(other);
      if (!parsed) return false;
      return checkRequest(await requests.get(parsed.requestId), parsed.node, parsed.requestId).ok;
    },
  };
  const slot = await acquireSlot(slotDeps, slots, holder);
  if (!slot)
    return outcome(EXIT.noSlot, `all ${slots.concurrency} slots are held; nothing was changed`);
  log.info({ slot: slot.name }, 'slot acquired');

  const lost = new AbortController();
  const renewing = keepRenewing(slotDeps, slots, slot, (why) => {
    log.error({ why }, 'slot lost');
    lost.abort(why);
  });
  const handle = new RequestHandle(ports, node, stored!);
  try {
    return await runSteps(ports, input, handle, {
      slotName: slot.name,
      holder,
      actions,
      lost: lost.signal,
    });
  } catch (error) {
    // Cancelled (or replaced) while we worked: give the node back rather than leave it cordoned
    // with no active request to explain it, then stop.
    if (!isRequestInvalid(error)) throw error;
    renewing.stop();
    const state = await giveBack(ports, input.settings, handle, { slotName: slot.name, holder });
    log.warn({ why: error.message, state }, 'request ended while the executor worked');
    return outcome(EXIT.requestInvalid, `${error.message}; ${state}`);
  } finally {
    renewing.stop();
  }
}

const isRequestInvalid = (error: unknown): error is KubemaintError =>
  error instanceof KubemaintError && error.code === 'request_invalid';

interface StepContext {
  slotName: string;
  holder: string;
  actions: HostAction[];
  lost: AbortSignal;
}

async function runSteps(
  ports: ExecutorPorts,
  input: ExecutorInput,
  handle: RequestHandle,
  ctx: StepContext,
): Promise<ExecutorOutcome> {
  const { nodes, events, clock, log } = ports;
  const first = handle.request.state === 'approved';
  // wasCordoned and cordonedByUs are written BEFORE cordoning: a crash right after the cordon must
  // not make a re-run believe someone else cordoned the node (it would then never be uncordoned).
  await handle.update((r, now) => {
    const started = transition(r, 'running', now, `executor started (slot ${ctx.slotName})`);
    const wasCordoned = r.wasCordoned ?? handle.node.unschedulable;
    return {
      ...started,
      slot: ctx.slotName,
      ...(input.job ? { job: input.job } : {}),
      wasCordoned,
      cordonedByUs: r.cordonedByUs ?? !wasCordoned,
    };
  });
  const ref = { name: handle.node.name, uid: handle.node.uid };
  if (first) {
    await events.recordNodeEvent(ref, {
      reason: 'KubemaintStarted',
      message: `request ${handle.request.id} (${handle.request.action}) running in slot ${ctx.slotName}`,
      type: 'Normal',
    });
  }
  if (!handle.node.unschedulable) {
    handle.node = await cordon(nodes, handle.node);
    await events.recordNodeEvent(ref, {
      reason: 'KubemaintCordoned',
      message: 'node cordoned',
      type: 'Normal',
    });
  }

  const delays = input.settings.delays;
  await waitAsAsked(ports, handle, {
    ms: delays?.beforeDrainMs ?? 0,
    key: 'drain.delay',
    before: 'before draining',
    lost: ctx.lost,
  });
  const ended = new AbortController();
  await events.recordNodeEvent(ref, {
    reason: 'KubemaintDraining',
    message: 'draining the node',
    type: 'Normal',
  });
  const progress = throttled(
    async (drain: NonNullable<typeof handle.request.drain>) => {
      await handle.update((r) => ({ ...r, drain }));
    },
    input.settings.progressIntervalMs,
    clock,
    (error) => {
      if (isRequestInvalid(error)) ended.abort(error);
      else log.warn({ err: error }, 'could not write drain progress');
    },
  );
  const report = await drainNode(
    { pods: ports.pods, clock },
    {
      node: input.node,
      settings: input.settings.drain,
      ...(input.selfPod ? { selfPod: input.selfPod } : {}),
    },
    {
      onProgress: (p) => progress.push(p),
      decision: async () => {
        try {
          return (await handle.refresh()).drainDecision?.decision;
        } catch (error) {
          if (isRequestInvalid(error)) ended.abort(error);
          throw error;
        }
      },
      abort: ended.signal,
      ...drainTimeoutEvents(events, ref, input.settings.drain),
      log,
    },
  );
  // The request ended (cancelled, replaced) while we drained: the caller gives the node back.
  if (ended.signal.aborted) throw ended.signal.reason;
  // A finished drain says when: the node's Drained condition (ADR 0041) starts there.
  progress.push(
    report.outcome === 'drained'
      ? { ...report.progress, completedAt: clock.now().toISOString() }
      : report.progress,
  );
  await progress.flush();
  log.info({ outcome: report.outcome, message: report.message }, 'drain finished');
  if (report.outcome !== 'drained') {
    return finishBlocked(ports, input, handle, ctx, report);
  }
  await events.recordNodeEvent(ref, {
    reason: 'KubemaintDrained',
    message: report.message,
    type: 'Normal',
  });
  if (handle.request.action === 'reboot') {
    await waitAsAsked(ports, handle, {
      ms: delays?.beforeRebootMs ?? 0,
      key: 'reboot.delay',
      before: 'before the reboot',
      lost: ctx.lost,
    });
  }
  if (ctx.lost.aborted) {
    throw new KubemaintError('unexpected', `lost slot ${ctx.slotName} before the host command`, {
      hint: 'slot.ttl may be shorter than a drain takes; the request was left running for the tick',
    });
  }
  return issueHostCommand(ports, handle, ctx.actions, report);
}
