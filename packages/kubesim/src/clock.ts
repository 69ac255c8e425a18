/**
 * The sim's one clock, in two modes. `createManualClock` never moves on its own: a unit test calls
 * `advance(ms)` and every timer due in that span runs in due order, including timers those timers
 * schedule, so controller cascades are deterministic. `createScaledClock` is the same clock advanced
 * by a wall-clock ticker, `scale` times faster than wall time; a tick never advances more than
 * `maxStepMs` of wall time, so an event-loop stall (TLS key generation, a busy CI machine) slows sim
 * time down instead of letting heartbeats look missed and nodes go Unknown.
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

interface Timer {
  id: number;
  due: number;
  fn: () => void;
  /** Set for `every` timers: rescheduled after each run. */
  interval?: number;
}

const before = (a: Timer, b: Timer): boolean => a.due < b.due || (a.due === b.due && a.id < b.id);

/** A binary min-heap on (due, id): due order, then creation order. */
class TimerHeap {
  private readonly items: Timer[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Timer | undefined {
    return this.items[0];
  }

  push(timer: Timer): void {
    const items = this.items;
    items.push(timer);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): Timer | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || !last) return top;
    items[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && before(items[l]!, items[m]!)) m = l;
      if (r < items.length && before(items[r]!, items[m]!)) m = r;
      if (m === i) break;
      [items[i], items[m]] = [items[m]!, items[i]!];
      i = m;
    }
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}

export function createManualClock(options: { start?: Date; scale?: number } = {}): ManualClock {
  let now = options.start?.getTime() ?? DEFAULT_START;
  let nextId = 0;
  const heap = new TimerHeap();
  /** Ids of live timers; a cancelled timer stays in the heap and is skipped when it surfaces. */
  const live = new Set<number>();

  const schedule = (due: number, fn: () => void, interval?: number): (() => void) => {
    const id = nextId++;
    heap.push(interval === undefined ? { id, due, fn } : { id, due, fn, interval });
    live.add(id);
    return () => void live.delete(id);
  };

  return {
    scale: options.scale ?? 1,
    now: () => new Date(now),
    after: (simMs, fn) => schedule(now + Math.max(0, simMs), fn),
    every(simMs, fn) {
      const interval = Math.max(1, simMs);
      return schedule(now + interval, fn, interval);
    },
    advance(simMs) {
      const target = now + Math.max(0, simMs);
      for (let timer = heap.peek(); timer && timer.due <= target; timer = heap.peek()) {
        heap.pop();
        if (!live.has(timer.id)) continue;
        now = Math.max(now, timer.due);
        if (timer.interval === undefined) live.delete(timer.id);
        else heap.push({ ...timer, due: timer.due + timer.interval });
        timer.fn();
      }
      now = Math.max(now, target);
    },
    pending: () => live.size,
    stop() {
      heap.clear();
      live.clear();
    },
  };
}

export function createScaledClock(
  options: { scale?: number; start?: Date; tickMs?: number; maxStepMs?: number } = {},
): OwnedClock {
  const scale = options.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) {
    throw new RangeError(`clock scale must be a positive number, got ${String(scale)}`);
  }
  const maxStepMs = options.maxStepMs ?? 50;
  const clock = createManualClock({ start: options.start ?? new Date(), scale });
  let last = performance.now();
  const ticker = setInterval(() => {
    const wall = performance.now();
    const step = Math.min(wall - last, maxStepMs);
    last = wall;
    try {
      clock.advance(step * scale);
    } catch (error) {
      // A timer callback that throws must not stop time for everyone else.
      console.error('sim clock: timer failed:', error);
    }
  }, options.tickMs ?? 5);
  return {
    scale,
    now: () => clock.now(),
    after: (simMs, fn) => clock.after(simMs, fn),
    every: (simMs, fn) => clock.every(simMs, fn),
    stop() {
      clearInterval(ticker);
      clock.stop();
    },
  };
}
