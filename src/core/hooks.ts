/**
 * Maintenance hooks (issue 18, ADR 0019): a person's Job that runs before the drain (`beforeDrain`:
 * take a backup, move a leader) and after the node is proven back (`afterReady`: check a service,
 * warm a cache), each with a timeout and a failure policy. The control plane creates the Job and
 * follows it; this module says what a hook's Job means for its request. Pure: the caller reads the
 * Job and passes `now`.
 */

export const HOOK_PHASES = ['beforeDrain', 'afterReady'] as const;
export type HookPhase = (typeof HOOK_PHASES)[number];

/** `abort`: a failed hook ends the request failed; `continue`: it is reported and the work goes on. */
export const HOOK_FAILURE_POLICIES = ['abort', 'continue'] as const;
export type HookFailurePolicy = (typeof HOOK_FAILURE_POLICIES)[number];

/** One hook's run, as the request's status records it (`status.hooks.<phase>`). */
export interface HookRun {
  /** The hook Job's name (deterministic per request and phase, core/names.ts). */
  job: string;
  state: 'running' | 'succeeded' | 'failed';
  startedAt: string;
  finishedAt?: string;
  /** Why it failed (exit code, the container's last words), or what it said. */
  message?: string;
  /** It failed, and `onFailure: continue` let the work go on. */
  continued?: boolean;
  /** afterReady: the proof the node came back with, kept while the hook runs. */
  proof?: string;
}

/** A hook Job as the control plane reads it (its pod's end included, when it failed). */
export interface HookJobView {
  phase: 'active' | 'succeeded' | 'failed';
  exitCode?: number;
  /** The Job's Failed condition (BackoffLimitExceeded, DeadlineExceeded). */
  message?: string;
  /** The container's own termination message (the last lines of its log on error). */
  podMessage?: string;
}

export type HookVerdict =
  { outcome: 'running' } | { outcome: 'succeeded' } | { outcome: 'failed'; why: string };

/**
 * How far a hook's Job got. Its own `activeDeadlineSeconds` stops it at the timeout; a Job still
 * active a minute past that (no Job controller acting on it) or one that vanished counts as failed.
 */
export function judgeHook(
  run: Pick<HookRun, 'job' | 'startedAt'>,
  job: HookJobView | undefined,
  timeoutMs: number,
  now: Date,
): HookVerdict {
  if (!job) return { outcome: 'failed', why: `hook Job ${run.job} vanished` };
  if (job.phase === 'succeeded') return { outcome: 'succeeded' };
  if (job.phase === 'active') {
    const late = now.getTime() - Date.parse(run.startedAt) > timeoutMs + 60_000;
    return late
      ? { outcome: 'failed', why: `hook Job ${run.job} still running past its timeout` }
      : { outcome: 'running' };
  }
  const parts = [
    job.exitCode === undefined ? undefined : `exit ${job.exitCode}`,
    job.podMessage?.trim().split('\n').slice(-3).join(' | '),
    job.message,
  ].filter((p): p is string => p !== undefined && p !== '');
  return {
    outcome: 'failed',
    why: `hook Job ${run.job} failed: ${parts.join(': ') || 'no reason given'}`,
  };
}

/** The label value that marks a hook Job (`kubemaint.io/hook`), as admission matches it. */
export const hookLabel = (phase: HookPhase): string =>
  phase === 'beforeDrain' ? 'before-drain' : 'after-ready';
