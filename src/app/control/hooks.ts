/**
 * Hooks in the control plane (issue 18, ADR 0021). The control plane, not the executor, creates a
 * hook's Job: it already may create Jobs (admission holds both kinds to their shape), and the
 * executor — privileged, on the node — gets no new power. `beforeDrain` runs once dispatch started a
 * request and before its executor Job exists (so before any cordon); `afterReady` once the node is
 * proven back and before kubemaint hands it back. Each run is recorded on the request
 * (`status.hooks.<phase>`), in an Event on the node and in the Slack thread and notifications.
 */
import { judgeHook, type HookPhase, type HookRun } from '../../core/hooks.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { ReconcileDeps } from './deps.js';
import { tell } from './persist.js';
import type { HookSettings } from './settings.js';

/** How long a recorded hook may be without its Job before it counts as vanished. */
const JOB_CREATE_GRACE_MS = 30_000;

/** The hook configured for `phase`, if any. */
export const hookOf = (deps: Pick<ReconcileDeps, 'settings'>, phase: HookPhase) =>
  deps.settings.hooks?.[phase];

/** A hook's Job and the run that records it, before anything is created. */
export interface PlannedHook {
  run: HookRun;
  manifest: Record<string, unknown>;
}

/** The hook configured for `phase` as it would start for `request` now; undefined without one. */
export function planHook(
  deps: Pick<ReconcileDeps, 'settings' | 'clock'>,
  request: MaintenanceRequest,
  phase: HookPhase,
): PlannedHook | undefined {
  const hook = hookOf(deps, phase);
  if (!hook) return undefined;
  const manifest = hook.jobFor(request.node, request.id, request.action);
  const name = (manifest['metadata'] as { name?: unknown } | undefined)?.name;
  const job = typeof name === 'string' ? name : '';
  return { manifest, run: { job, state: 'running', startedAt: deps.clock.now().toISOString() } };
}

/** Where a running hook is: still running, or ended, with whether the work goes on. */
export type HookStep =
  { kind: 'running' } | { kind: 'ended'; run: HookRun; proceed: boolean; why?: string };

export async function followHook(
  deps: ReconcileDeps,
  run: HookRun,
  hook: HookSettings,
): Promise<HookStep> {
  const now = deps.clock.now();
  const job = await deps.cluster.getJob(run.job);
  // The run is recorded before its Job is created: a missing Job is one being created, for a while.
  const creating = !job && now.getTime() - Date.parse(run.startedAt) < JOB_CREATE_GRACE_MS;
  const verdict = creating
    ? { outcome: 'running' as const }
    : judgeHook(run, job, hook.timeoutMs, now);
  if (verdict.outcome === 'running') return { kind: 'running' };
  const finishedAt = now.toISOString();
  if (verdict.outcome === 'succeeded')
    return { kind: 'ended', run: { ...run, state: 'succeeded', finishedAt }, proceed: true };
  const proceed = hook.onFailure === 'continue';
  const ended: HookRun = {
    ...run,
    state: 'failed',
    finishedAt,
    message: verdict.why.slice(0, 2_000),
    ...(proceed ? { continued: true } : {}),
  };
  return { kind: 'ended', run: ended, proceed, why: verdict.why };
}

/** The request with `phase`'s run recorded. */
export const withHook = (
  request: MaintenanceRequest,
  phase: HookPhase,
  run: HookRun,
): MaintenanceRequest => ({ ...request, hooks: { ...request.hooks, [phase]: run } });

/** Say what a hook did: an Event on the node, the thread, the notifications. */
export async function tellHook(
  deps: ReconcileDeps,
  request: MaintenanceRequest,
  phase: HookPhase,
  run: HookRun,
  onFailure: HookSettings['onFailure'],
): Promise<void> {
  const took =
    run.finishedAt === undefined
      ? ''
      : ` in ${Math.max(0, Math.round((Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 1_000))}s`;
  const message =
    run.state === 'running'
      ? `${phase} hook started (Job ${run.job})`
      : run.state === 'succeeded'
        ? `${phase} hook succeeded${took}`
        : `${phase} hook failed${took}: ${run.message ?? 'no reason given'}; ${
            onFailure === 'continue'
              ? 'going on (onFailure: continue)'
              : 'the request fails (onFailure: abort)'
          }`;
  await tell(deps, request, {
    kind: 'hook',
    reason:
      run.state === 'running'
        ? 'KubemaintHookStarted'
        : run.state === 'succeeded'
          ? 'KubemaintHookSucceeded'
          : 'KubemaintHookFailed',
    message,
    ...(run.state === 'failed' ? { warning: true } : {}),
  });
}
