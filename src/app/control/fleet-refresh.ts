/**
 * Keeps serve's FleetView current: read again after every tick, handed to whoever shows it (the
 * metrics, the status page). Reads never overlap, asks during a read make one more read after it
 * (not one each), and reads are at least `minIntervalMs` apart, so a burst of watch-driven ticks on
 * a large fleet costs a few reads, not one per tick. Never throws into its callers.
 */
import type { FleetView } from './fleet-view.js';

export interface FleetRefresher {
  /** Ask for a read as soon as the interval allows. */
  refresh(): void;
  /** The last view read, if any. */
  latest(): FleetView | undefined;
  /** Resolves when no read is running or queued (tests). */
  idle(): Promise<void>;
  /** Stop taking asks; resolves once the read in flight has finished. */
  stop(): Promise<void>;
}

export interface FleetRefreshDeps {
  read: () => Promise<FleetView>;
  onView: (view: FleetView) => void;
  onError: (error: unknown) => void;
  now: () => Date;
  /** Waits `ms`, or less when `signal` aborts (stop). */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  minIntervalMs: number;
}

export function createFleetRefresher(deps: FleetRefreshDeps): FleetRefresher {
  let queued = false;
  let running = false;
  let lastRead = -Infinity;
  let latest: FleetView | undefined;
  let current: Promise<void> = Promise.resolve();
  const stopping = new AbortController();

  async function drain(): Promise<void> {
    running = true;
    try {
      while (queued && !stopping.signal.aborted) {
        const wait = lastRead + deps.minIntervalMs - deps.now().getTime();
        if (wait > 0) await deps.sleep(wait, stopping.signal);
        if (stopping.signal.aborted) return;
        // Asks made while waiting are answered by this read.
        queued = false;
        lastRead = deps.now().getTime();
        try {
          latest = await deps.read();
          deps.onView(latest);
        } catch (error) {
          deps.onError(error);
        }
      }
    } finally {
      running = false;
    }
  }

  return {
    refresh() {
      if (stopping.signal.aborted) return;
      queued = true;
      if (!running) current = drain();
    },
    latest: () => latest,
    async idle() {
      while ((queued && !stopping.signal.aborted) || running) await current;
    },
    async stop() {
      stopping.abort();
      await current;
    },
  };
}
