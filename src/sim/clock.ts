/**
 * The sim's one clock, in two modes. `createScaledClock` runs sim time `scale` times faster than wall
 * time on real timers (the demo, integration tests). `createManualClock` never moves on its own: a unit
 * test calls `advance(ms)` and every timer due in that span runs in due order, including timers that
 * those timers schedule, so controller cascades are deterministic.
 */
import type { SimClock } from './types.js';

/** A clock the sim owns: `stop()` cancels every timer so a stopped sim leaves nothing behind. */
export interface OwnedClock extends SimClock {
  stop(): void;
}

export interface ManualClock extends OwnedClock {
  /** Move sim time forward by `simMs`, running every timer that falls due on the way. */
  advance(simMs: number): void;
  /** Timers still scheduled (for tests that check nothing leaks). */
  pending(): number;
}

const DEFAULT_START = Date.parse('2026-01-05T09:00:00Z');

export function createScaledClock(options: { scale?: number; start?: Date } = {}): OwnedClock {
  const scale = options.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) {
    throw new RangeError(`clock scale must be a positive number, got ${String(scale)}`);
  }
  const wallStart = Date.now();
  const simStart = options.start?.getTime() ?? wallStart;
  const timers = new Set<NodeJS.Timeout>();
  const wallMs = (simMs: number): number => Math.max(0, simMs / scale);

  return {
    scale,
    now: () => new Date(simStart + (Date.now() - wallStart) * scale),
    after(simMs, fn) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        fn();
      }, wallMs(simMs));
      timers.add(timer);
      return () => {
        clearTimeout(timer);
        timers.delete(timer);
      };
    },
    every(simMs, fn) {
      // A zero interval would spin the event loop; one wall millisecond is the floor.
      const timer = setInterval(fn, Math.max(1, wallMs(simMs)));
      timers.add(timer);
      return () => {
        clearInterval(timer);
        timers.delete(timer);
      };
    },
    stop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

interface ManualTimer {
  id: number;
  due: number;
  fn: () => void;
  /** Set for `every` timers: rescheduled after each run. */
  interval?: number;
}

export function createManualClock(options: { start?: Date } = {}): ManualClock {
  let now = options.start?.getTime() ?? DEFAULT_START;
  let nextId = 0;
  const timers = new Map<number, ManualTimer>();

  const schedule = (due: number, fn: () => void, interval?: number): (() => void) => {
    const id = nextId++;
    timers.set(id, interval === undefined ? { id, due, fn } : { id, due, fn, interval });
    return () => void timers.delete(id);
  };
  // Due order, then creation order, so two timers due together run in the order they were set.
  const nextDue = (limit: number): ManualTimer | undefined => {
    let best: ManualTimer | undefined;
    for (const timer of timers.values()) {
      if (timer.due > limit) continue;
      if (!best || timer.due < best.due || (timer.due === best.due && timer.id < best.id)) {
        best = timer;
      }
    }
    return best;
  };

  return {
    scale: 1,
    now: () => new Date(now),
    after: (simMs, fn) => schedule(now + Math.max(0, simMs), fn),
    every(simMs, fn) {
      const interval = Math.max(1, simMs);
      return schedule(now + interval, fn, interval);
    },
    advance(simMs) {
      const target = now + Math.max(0, simMs);
      for (let timer = nextDue(target); timer; timer = nextDue(target)) {
        now = Math.max(now, timer.due);
        if (timer.interval === undefined) timers.delete(timer.id);
        else timer.due += timer.interval;
        timer.fn();
      }
      now = target;
    },
    pending: () => timers.size,
    stop: () => timers.clear(),
  };
}
