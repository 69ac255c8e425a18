/**
 * Time, injectable: the sim runs on a scaled clock, tests on a manual one. The one definition of a
 * clock: the control plane only reads it (`Pick<Clock, 'now'>`), the executor also waits on it.
 */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or early (without error) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
