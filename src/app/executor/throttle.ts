/**
 * Throttled, serialized writes of the latest value: drain progress changes many times a second, but
 * the request annotation should change at most once per interval (each write is a conditional write
 * on the Node, and every watcher of nodes sees it). The last value is always written by `flush`.
 */
import type { Clock } from '../ports.js';

export interface Throttled<T> {
  push(value: T): void;
  /** Write the latest pending value now and wait for every write in flight. */
  flush(): Promise<void>;
}

export function throttled<T>(
  write: (value: T) => Promise<void>,
  intervalMs: number,
  clock: Clock,
  onError: (error: unknown) => void,
): Throttled<T> {
  let pending: { value: T } | undefined;
  let lastWrite = -Infinity;
  let chain: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const drainPending = (): Promise<void> => {
    chain = chain.then(async () => {
      if (!pending) return;
      const { value } = pending;
      pending = undefined;
      lastWrite = clock.now().getTime();
      try {
        await write(value);
      } catch (error) {
        onError(error);
      }
    });
    return chain;
  };

  return {
    push(value) {
      pending = { value };
      const wait = lastWrite + intervalMs - clock.now().getTime();
      if (wait <= 0) {
        void drainPending();
      } else if (!timer) {
        timer = setTimeout(() => {
          timer = undefined;
          void drainPending();
        }, wait);
      }
    },
    async flush() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await drainPending();
    },
  };
}
