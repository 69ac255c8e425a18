/**
 * A scaled clock that can be held still and moved ahead (issue 21), built on kubesim's manual clock:
 * the rehearsal holds its twin's time while kubemaint's own work (a tick) runs, so the twin does not
 * charge a tick's wall milliseconds at its scale as minutes nobody would wait in a real cluster; the
 * accuracy benchmark holds a cluster still while the rehearsal reads it.
 */
import { createManualClock, type OwnedClock } from '@kubemaint/kubesim';

export interface HeldClock extends OwnedClock {
  /** Time stands still until `run`. */
  hold(): void;
  run(): void;
  /** Moves the time to `at` at once; every timer due on the way fires, in order. */
  skipTo(at: Date): void;
}

/** `scale` sim ms per wall ms, from `start`, advanced every 5 wall ms by at most 50 wall ms' worth. */
export function createHeldClock(options: { scale: number; start: Date }): HeldClock {
  const { scale } = options;
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new RangeError(`clock scale must be a positive number, got ${String(scale)}`);
  const clock = createManualClock({ start: options.start, scale });
  let held = false;
  let last = performance.now();
  const ticker = setInterval(() => {
    const wall = performance.now();
    const step = Math.min(wall - last, 50);
    last = wall;
    if (held) return;
    try {
      clock.advance(step * scale);
    } catch (error) {
      // A timer callback that throws must not stop time for everyone else.
      console.error('held clock: timer failed:', error);
    }
  }, 5);
  return {
    scale,
    now: () => clock.now(),
    after: (ms, fn) => clock.after(ms, fn),
    every: (ms, fn) => clock.every(ms, fn),
    hold: () => void (held = true),
    run() {
      last = performance.now();
      held = false;
    },
    skipTo: (at) => clock.advance(Math.max(0, at.getTime() - clock.now().getTime())),
    stop() {
      clearInterval(ticker);
      clock.stop();
    },
  };
}
