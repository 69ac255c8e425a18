/**
 * The wall clock the executor runs on in a real cluster. Tests and the sim pass their own Clock.
 */
import type { Clock } from '../ports.js';

/** The wall clock; the sleep ends early, without error, when `signal` aborts. */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms));
      function done(): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};
