/**
 * Fault injection for the API server, per route and verb: error rates (500, 429 with Retry-After,
 * 409), added latency and dropped watch streams. Rules are matched in order; every matching rule's
 * latency adds up and the first matching rule that fires decides the error. Randomness is seeded,
 * so a failing test replays the same faults.
 */
import { StatusError } from '../types.js';

export const FAULT_VERBS = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
] as const;
export type FaultVerb = (typeof FAULT_VERBS)[number];

export interface FaultRule {
  /**
   * Resource key as in `R` (`pods`, `leases.coordination.k8s.io`), optionally with a subresource
   * (`pods/eviction`, `nodes/status`); `*` or absent matches every resource route.
   */
  resource?: string;
  /** @default every verb */
  verb?: FaultVerb | '*';
  namespace?: string;
  name?: string;
  /** Probability (0–1) that a matching request fails with `error`. @default 1 */
  rate?: number;
  error?: 500 | 429 | 409;
  /** Retry-After for 429. @default 1 */
  retryAfterSeconds?: number;
  /** Wall-clock milliseconds added before answering a matching request. */
  latencyMs?: number;
  /** Watch streams matching the rule are cut after this many wall-clock milliseconds. */
  dropWatchAfterMs?: number;
  /** The rule retires after firing this many times (errors or drops). @default unlimited */
  times?: number;
}

export interface FaultRequest {
  resource: string;
  subresource: string | undefined;
  verb: FaultVerb;
  namespace: string | undefined;
  name: string | undefined;
}

export interface FaultDecision {
  latencyMs: number;
  error?: StatusError;
  dropWatchAfterMs?: number;
}

/** mulberry32: small, fast, good enough to make fault patterns reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Checks a rule list from a test or the admin endpoint; the message says which rule and why. */
export function validateFaults(input: unknown): FaultRule[] {
  const list = Array.isArray(input) ? input : (input as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list)) {
    throw new StatusError(
      400,
      'BadRequest',
      'faults must be a JSON array of rules (or {"rules": [...]})',
    );
  }
  return list.map((raw, i) => {
    const rule = (raw ?? {}) as FaultRule;
    const bad = (why: string) => new StatusError(400, 'BadRequest', `faults[${i}]: ${why}`);
    if (typeof raw !== 'object' || raw === null) throw bad('must be an object');
    if (rule.verb !== undefined && rule.verb !== '*' && !FAULT_VERBS.includes(rule.verb)) {
      throw bad(`verb ${JSON.stringify(rule.verb)} is not one of *, ${FAULT_VERBS.join(', ')}`);
    }
    if (rule.error !== undefined && ![500, 429, 409].includes(rule.error)) {
      throw bad(`error ${JSON.stringify(rule.error)} must be 500, 429 or 409`);
    }
    if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1))
      throw bad('rate must be between 0 and 1');
    return rule;
  });
}

function matches(rule: FaultRule, req: FaultRequest): boolean {
  const target = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
  if (rule.resource !== undefined && rule.resource !== '*' && rule.resource !== target)
    return false;
  if (rule.verb !== undefined && rule.verb !== '*' && rule.verb !== req.verb) return false;
  if (rule.namespace !== undefined && rule.namespace !== req.namespace) return false;
  return rule.name === undefined || rule.name === req.name;
}

function errorFor(rule: FaultRule, req: FaultRequest): StatusError {
  const what = `${req.verb} ${req.resource}${req.name ? ` "${req.name}"` : ''}`;
  switch (rule.error) {
    case 429: {
      const retryAfterSeconds = rule.retryAfterSeconds ?? 1;
      return new StatusError(
        429,
        'TooManyRequests',
        `the server has received too many requests and has asked us to try again later (injected fault: ${what})`,
        {
          details: { retryAfterSeconds },
          retryAfterSeconds,
        },
      );
    }
    case 409:
      return new StatusError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${req.resource} "${req.name ?? ''}": the object has been modified; please apply your changes to the latest version and try again (injected fault)`,
        {
          details: { name: req.name ?? '', kind: req.resource },
        },
      );
    case 500:
    case undefined:
      return new StatusError(
        500,
        'InternalError',
        `Internal error occurred: injected fault: ${what}`,
      );
  }
}

export class FaultInjector {
  #rules: { rule: FaultRule; fired: number }[] = [];
  readonly #random: () => number;

  constructor(rules: FaultRule[] = [], seed = 1) {
    this.#random = seededRandom(seed);
    this.set(rules);
  }

  set(rules: FaultRule[]): void {
    this.#rules = validateFaults(rules).map((rule) => ({ rule, fired: 0 }));
  }

  rules(): FaultRule[] {
    return this.#rules.map((r) => r.rule);
  }

  decide(req: FaultRequest): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0 };
    for (const entry of this.#rules) {
      const { rule } = entry;
      if (!matches(rule, req)) continue;
      decision.latencyMs += rule.latencyMs ?? 0;
      const spent = rule.times !== undefined && entry.fired >= rule.times;
      if (spent || decision.error || decision.dropWatchAfterMs !== undefined) continue;
      const drops = rule.dropWatchAfterMs !== undefined && req.verb === 'watch';
      if (rule.error === undefined && !drops) continue;
      if (this.#random() >= (rule.rate ?? 1)) continue;
      entry.fired++;
      if (rule.error !== undefined) decision.error = errorFor(rule, req);
      else decision.dropWatchAfterMs = rule.dropWatchAfterMs;
    }
    return decision;
  }
}
