/**
 * Decides `/readyz` for `serve`: ready once a tick has succeeded and the last success is recent
 * (the cluster answered within `maxAgeMs`, a few tick intervals). A failed tick does not flip
 * readiness at once: one API hiccup should not pull the pod out of the Service, but a control plane
 * that has not completed a tick for `maxAgeMs` is not doing its job and says why.
 */
import type { Readiness } from './ops-server.js';

export interface TickReadiness {
  /** Call after every tick with its outcome. */
  record(outcome: { ok: true } | { ok: false; error: unknown }): void;
  ready(): Readiness;
}

export function tickReadiness(options: {
  clock: { now(): Date };
  /** @default 180_000 (three ticks of the default one-minute schedule) */
  maxAgeMs?: number;
}): TickReadiness {
  const maxAgeMs = options.maxAgeMs ?? 180_000;
  let lastOk: Date | undefined;
  let lastError: string | undefined;
  return {
    record(outcome) {
      if (outcome.ok) {
        lastOk = options.clock.now();
        lastError = undefined;
      } else {
        lastError = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      }
    },
    ready() {
      const failing = lastError ? `; last tick failed: ${lastError}` : '';
      if (!lastOk) return { ok: false, why: `no tick has succeeded yet${failing}` };
      const age = options.clock.now().getTime() - lastOk.getTime();
      if (age > maxAgeMs) {
        return {
          ok: false,
          why: `last successful tick ${Math.round(age / 1000)}s ago (limit ${Math.round(maxAgeMs / 1000)}s)${failing}`,
        };
      }
      return { ok: true, why: `last successful tick ${Math.round(age / 1000)}s ago${failing}` };
    },
  };
}
