/**
 * The tick loop of `serve`: ticks never overlap, and a kick during a tick (a watch saw a change, the
 * schedule fired) runs exactly one more tick afterwards instead of piling up. It remembers how the
 * last tick went, for /readyz and the metrics, and never throws into its callers.
 */
import type { TickReport } from './tick.js';

export interface LoopStatus {
  ticks: number;
  failures: number;
  lastSuccessAt?: Date;
  lastError?: string;
  lastDurationMs?: number;
  running: boolean;
}

export interface TickLoop {
  /** Ask for a tick as soon as possible; `skewScan` makes the next tick a full scan. */
  kick(options?: { skewScan?: boolean }): void;
  /** Resolves when no tick is running or queued (tests, shutdown). */
  idle(): Promise<void>;
  status(): LoopStatus;
  /** Stop taking kicks; resolves once the tick in flight has finished (never half-written). */
  stop(): Promise<void>;
}

export interface LoopDeps {
  tick: (options: { skewScan: boolean }) => Promise<TickReport>;
  now: () => Date;
  onTick?: (report: TickReport, durationMs: number) => void;
  onError?: (error: unknown, durationMs: number) => void;
}

export function createTickLoop(deps: LoopDeps): TickLoop {
  const status: LoopStatus = { ticks: 0, failures: 0, running: false };
  let queued = false;
  let queuedSkew = false;
  let stopped = false;
  let current: Promise<void> = Promise.resolve();

  async function runOnce(skewScan: boolean): Promise<void> {
    const started = deps.now().getTime();
    status.running = true;
    try {
      const report = await deps.tick({ skewScan });
      const took = deps.now().getTime() - started;
      status.ticks += 1;
      status.lastSuccessAt = deps.now();
      status.lastDurationMs = took;
      delete status.lastError;
      deps.onTick?.(report, took);
    } catch (error) {
      const took = deps.now().getTime() - started;
      status.failures += 1;
      status.lastDurationMs = took;
      status.lastError = error instanceof Error ? error.message : String(error);
      deps.onError?.(error, took);
    } finally {
      status.running = false;
    }
  }

  async function drain(): Promise<void> {
    while (queued && !stopped) {
      const skew = queuedSkew;
      queued = false;
      queuedSkew = false;
      await runOnce(skew);
    }
  }

  return {
    kick(options = {}) {
      if (stopped) return;
      queuedSkew ||= options.skewScan === true;
      if (queued) return;
      queued = true;
      if (!status.running) current = drain();
    },
    async idle() {
      while (queued || status.running) await current;
    },
    status: () => ({ ...status }),
    async stop() {
      stopped = true;
      await current;
    },
  };
}
