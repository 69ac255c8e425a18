/**
 * Decides `/readyz` for `serve`: ready once a tick has succeeded and the last success is recent
 * (the cluster answered within `maxAgeMs`, a few tick intervals). A failed tick does not flip
 * readiness at once: one API hiccup should not pull the pod out of the Service, but a control plane
 * that has not completed a tick for `maxAgeMs` is not doing its job and says why. A failure that is
 * the apiserver refusing serve (a TLS handshake it cannot pass, a 401: `refusal` says which) does
 * flip it at once, from a tick or from a watch (`contact`): no retry will get past it until someone
 * changes the kubeconfig, so there is nothing to wait for. Any success clears it.
 */
import type { Readiness } from './ops-server.js';

type Outcome = { ok: true } | { ok: false; error: unknown };

export interface TickReadiness {
  /** Call after every tick with its outcome. */
  record(outcome: Outcome): void;
  /** Call with the outcome of other calls to the apiserver (watches opening, lists). */
  contact(outcome: Outcome): void;
  ready(): Readiness;
}

export function tickReadiness(options: {
  clock: { now(): Date };
  /** @default 180_000 (three ticks of the default one-minute schedule) */
  maxAgeMs?: number;
  /** Why a failure is the apiserver refusing serve, or undefined when it is not. @default none is */
  refusal?: (error: unknown) => string | undefined;
}): TickReadiness {
  const maxAgeMs = options.maxAgeMs ?? 180_000;
  const refusalOf = options.refusal ?? (() => undefined);
  let lastOk: Date | undefined;
  let lastError: string | undefined;
  let refused: string | undefined;
  const noteContact = (outcome: Outcome): void => {
    refused = outcome.ok ? undefined : (refusalOf(outcome.error) ?? refused);
  };
  return {
    record(outcome) {
      noteContact(outcome);
      if (outcome.ok) {
        lastOk = options.clock.now();
        lastError = undefined;
      } else {
        lastError = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      }
    },
    contact: noteContact,
    ready() {
      if (refused) return { ok: false, why: `the apiserver refuses serve: ${refused}` };
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
