/**
 * The two places a request waits on a hook (ADR 0021). `beforeDrain`: the request is running, its
 * executor Job not created yet, the node untouched; success (or a failure with `onFailure:
 * continue`) creates the executor Job, an aborting failure fails the request and leaves the node as
 * it was. `afterReady`: the node is proven back and still cordoned, its slot held; success hands it
 * back as usual on the next tick (verification runs again), an aborting failure fails the request
 * and leaves the node cordoned for a person to look at — the hook said it is not fit for work.
 */
import { fail } from '../../core/approval.js';
import type { HookPhase, HookRun } from '../../core/hooks.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { ReconcileDeps } from './deps.js';
import { startExecutor } from './executor-start.js';
import { followHook, planHook, tellHook, withHook, type PlannedHook } from './hooks.js';
import { persist } from './persist.js';
import type { NodeView } from './ports.js';
import { failAndRestore, SYSTEM } from './restore.js';
import type { HookSettings } from './settings.js';

/** A hook whose config was removed while it ran is still followed, with the defaults. */
const settingsOf = (deps: ReconcileDeps, phase: HookPhase): HookSettings =>
  deps.settings.hooks?.[phase] ?? {
    timeoutMs: 10 * 60_000,
    onFailure: 'abort',
    jobFor: () => ({}),
  };

export async function reconcileBeforeDrain(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  run: HookRun,
): Promise<string> {
  const hook = settingsOf(deps, 'beforeDrain');
  const step = await followHook(deps, run, hook);
  if (step.kind === 'running') return `beforeDrain hook running (Job ${run.job})`;
  const recorded = withHook(request, 'beforeDrain', step.run);
  await tellHook(deps, recorded, 'beforeDrain', step.run, hook.onFailure);
  if (!step.proceed) {
    // Nothing touched the node yet: it is given back as it was (uncordoned), the hook's reason said.
    await failAndRestore(deps, node, recorded, `beforeDrain hook failed: ${step.why ?? '?'}`);
    return 'failed: beforeDrain hook';
  }
  // The executor Job before the write: a crash in between finds it again (AlreadyExists).
  try {
    await startExecutor(deps, node, recorded);
  } catch (error) {
    const why = `executor Job ${request.job ?? '?'} was not created: ${error instanceof Error ? error.message : String(error)}`;
    await failAndRestore(deps, node, recorded, why);
    return `failed: ${why}`;
  }
  await persist(deps, node, { ok: true, changed: true, request: recorded });
  return `beforeDrain hook ${step.run.state}; executor Job ${request.job ?? '?'} created`;
}

/**
 * Dispatch recorded the request running with its beforeDrain hook: create the hook's Job (instead
 * of the executor's). A Job the apiserver refuses fails the request at once, node untouched.
 */
export async function startBeforeDrain(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  planned: PlannedHook,
): Promise<string> {
  const hook = settingsOf(deps, 'beforeDrain');
  try {
    await deps.cluster.createJob(planned.manifest);
  } catch (error) {
    const why = `beforeDrain hook Job ${planned.run.job} was not created: ${error instanceof Error ? error.message : String(error)}`;
    await failAndRestore(deps, node, request, why);
    return `${node.name}: failed: ${why}`;
  }
  await tellHook(deps, request, 'beforeDrain', planned.run, hook.onFailure);
  return `${node.name}: started beforeDrain hook ${planned.run.job}`;
}

/** The node was just proven back: start the afterReady hook and hold everything until it ends. */
export async function beginAfterReady(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  proof: string,
): Promise<string> {
  const planned = planHook(deps, request, 'afterReady');
  if (!planned) return 'no afterReady hook';
  const run = { ...planned.run, proof };
  const recorded = withHook(request, 'afterReady', run);
  // Recorded first, then created: a crash in between is a Job being created (hooks.ts, the grace).
  const outcome = await persist(deps, node, { ok: true, changed: true, request: recorded });
  if (outcome.status !== 'written') return 'back; the afterReady hook starts on the next tick';
  const hook = settingsOf(deps, 'afterReady');
  try {
    await deps.cluster.createJob(planned.manifest);
  } catch (error) {
    const why = `hook Job ${run.job} was not created: ${error instanceof Error ? error.message : String(error)}`;
    const failed: HookRun = { ...run, state: 'failed', message: why, finishedAt: run.startedAt };
    const fresh = (await deps.cluster.findRequest(request.id)) ?? node;
    return endAfterReady(deps, fresh, recorded, failed, hook, why);
  }
  await tellHook(deps, recorded, 'afterReady', run, hook.onFailure);
  return `back; afterReady hook started (Job ${run.job})`;
}

export async function reconcileAfterReady(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  run: HookRun,
): Promise<string> {
  const hook = settingsOf(deps, 'afterReady');
  const step = await followHook(deps, run, hook);
  if (step.kind === 'running') return `afterReady hook running (Job ${run.job})`;
  return endAfterReady(deps, node, request, step.run, hook, step.why);
}

/** Record how the afterReady hook ended; go on to hand the node back, or fail it cordoned. */
async function endAfterReady(
  deps: ReconcileDeps,
  node: NodeView,
  request: MaintenanceRequest,
  ended: HookRun,
  hook: HookSettings,
  why: string | undefined,
): Promise<string> {
  const proceed = ended.state === 'succeeded' || hook.onFailure === 'continue';
  const run = ended.state === 'failed' && proceed ? { ...ended, continued: true } : ended;
  const recorded = withHook(request, 'afterReady', run);
  await tellHook(deps, recorded, 'afterReady', run, hook.onFailure);
  if (proceed) {
    // Handed back on the next tick, by the usual path (verification sees the node back again).
    await persist(deps, node, { ok: true, changed: true, request: recorded });
    return `afterReady hook ${run.state}; handing the node back`;
  }
  const failure = `afterReady hook failed: ${why ?? '?'}; left cordoned for a person to look at`;
  const result = fail(recorded, { by: SYSTEM, failure }, deps.clock.now());
  await persist(deps, node, result, { kind: 'failed', message: failure, warning: true });
  return 'failed: afterReady hook';
}
