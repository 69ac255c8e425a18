/**
 * A de-duplicating work queue, the shape of client-go's workqueue: watch handlers only `add` keys (the
 * store delivers events synchronously, inside the write), and the queue runs the reconcile for each key
 * on the next clock turn, outside any write. A reconcile that throws (a 409 from a racing writer) is
 * retried after `retryMs`.
 */
import type { Logger } from '../log.js';
import type { SimClock } from '../types.js';

export interface WorkQueue {
  add(key: string): void;
  /** Add after `simMs` (deadlines: activeDeadlineSeconds, TTLs, toleration expiry). */
  addAfter(key: string, simMs: number): void;
  stop(): void;
}

export function createWorkQueue(options: {
  name: string;
  clock: SimClock;
  log: Logger;
  reconcile: (key: string) => void;
  retryMs?: number;
}): WorkQueue {
  const { clock, log, reconcile } = options;
  const retryMs = options.retryMs ?? 1_000;
  const dirty = new Set<string>();
  const cancels = new Set<() => void>();
  let scheduled = false;
  let stopped = false;

  const flush = (): void => {
    scheduled = false;
    const keys = [...dirty];
    dirty.clear();
    for (const key of keys) {
      if (stopped) return;
      try {
        reconcile(key);
      } catch (error) {
        log.debug({ controller: options.name, key, err: error }, 'reconcile failed, retrying');
        queue.addAfter(key, retryMs);
      }
    }
  };

  const queue: WorkQueue = {
    add(key) {
      if (stopped) return;
      dirty.add(key);
      if (scheduled) return;
      scheduled = true;
      const cancel = clock.after(0, () => {
        cancels.delete(cancel);
        flush();
      });
      cancels.add(cancel);
    },
    addAfter(key, simMs) {
      if (stopped) return;
      const cancel = clock.after(simMs, () => {
        cancels.delete(cancel);
        queue.add(key);
      });
      cancels.add(cancel);
    },
    stop() {
      stopped = true;
      for (const cancel of cancels) cancel();
      cancels.clear();
      dirty.clear();
    },
  };
  return queue;
}
