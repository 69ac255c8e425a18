/**
 * Sends the latest wanted state of one thing (a pod's status, the node's status, its Lease) in the
 * background, one request at a time. Writes asked for while one is in flight collapse into the next,
 * as the kubelet's status manager only ever syncs the newest status. `send` reads what is wanted when
 * it runs and handles the answers that end the matter (a pod that is gone); whatever it throws is
 * tried again after a wall-clock backoff (doubling up to 10 s), for as long as the writer runs.
 */
import type { Logger } from '../log.js';

export interface LatestWriter {
  /** Something changed: send it (now, or after the request in flight). */
  kick(): void;
  /** Resolves once nothing is waiting to be sent. */
  idle(): Promise<void>;
  stop(): void;
}

export function latestWriter(
  what: string,
  send: () => Promise<void>,
  log: Logger,
  backoff = { initialMs: 200, maxMs: 10_000 },
): LatestWriter {
  let dirty = false;
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  const loop = async (): Promise<void> => {
    let delayMs = backoff.initialMs;
    while (dirty && !stopped) {
      dirty = false;
      try {
        await send();
        delayMs = backoff.initialMs;
      } catch (error) {
        if (stopped) break;
        dirty = true;
        log.warn(
          { what, err: error instanceof Error ? error.message : String(error), retryInMs: delayMs },
          'sim kubelet write failed; retrying',
        );
        await sleep(delayMs);
        delayMs = Math.min(delayMs * 2, backoff.maxMs);
      }
    }
    running = undefined;
  };

  return {
    kick() {
      if (stopped) return;
      dirty = true;
      running ??= loop();
    },
    idle: async () => {
      while (running) await running;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}
