/**
 * When to try a failed notification again: exponential backoff with jitter (so many kubemaint
 * instances do not retry in step), a service's own Retry-After when it sent one, and an overall
 * deadline after which the message is given up, because a late maintenance notice helps nobody.
 */

export interface RetryPolicy {
  /** Tries in all, the first included. @default 5 */
  attempts: number;
  /** The first retry waits about this long; each later one twice as long. @default 1000 */
  baseDelayMs: number;
  /** @default 30000 */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the message is given up. @default 120000 */
  maxRetryAfterMs: number;
  /** From the first try; no retry starts after it. @default 300000 */
  deadlineMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  deadlineMs: 300_000,
};

/**
 * Delay before retry number `retry` (1 = the first retry): half of the exponential step fixed and
 * half random ("equal jitter"), so a retry never comes too soon and retries still spread out.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; why: string };

/** Whether and when to retry after a failed try number `attempt`, `elapsedMs` after the first. */
export function nextRetry(
  failure: { retryable: boolean; retryAfterMs?: number | undefined },
  attempt: number,
  elapsedMs: number,
  policy: RetryPolicy,
  random: () => number,
): RetryDecision {
  if (!failure.retryable) return { retry: false, why: 'the service refused the message' };
  if (attempt >= policy.attempts) return { retry: false, why: `gave up after ${attempt} tries` };
  if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs) {
    return {
      retry: false,
      why: `the service asked to wait ${failure.retryAfterMs}ms, longer than allowed`,
    };
  }
  const delayMs = failure.retryAfterMs ?? backoffDelay(attempt, policy, random);
  if (elapsedMs + delayMs > policy.deadlineMs) {
    return {
      retry: false,
      why: `the next try would come after the ${policy.deadlineMs}ms deadline`,
    };
  }
  return { retry: true, delayMs };
}
