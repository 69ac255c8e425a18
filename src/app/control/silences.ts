/**
 * Alertmanager silences for a node in maintenance (`alertmanager:`, ADR 0020). The control plane
 * makes them, not the executor: it already holds the monitoring stack's address and credentials,
 * while the executor runs with a pod-bound token that should reach nothing but the apiserver.
 * Dispatch makes one silence per matcher set before the Job exists and records the ids on the
 * request; every tick extends those of in-flight requests so they end `margin` ahead, and makes
 * again one that ended early (it lapsed while no control plane ran, or someone expired it). A
 * write that ends a request expires its silences at once (persist.ts); whatever is left over (the
 * executor ended the request, a control plane died between two writes) is expired by the sweep
 * here, which ends every silence this cluster's kubemaint made that no in-flight request holds.
 */
import { matchersFor, silenceComment } from '../../core/silence.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { ReconcileDeps } from './deps.js';
import { persist } from './persist.js';
import type { NodeView } from './ports.js';
import { messageOf } from '../../error-message.js';

type Held = NonNullable<MaintenanceRequest['silences']>;

/**
 * A silence younger than this that no request holds yet may be one another control plane just
 * made and is about to record: the sweep leaves it alone.
 */
export const SWEEP_GRACE_MS = 2 * 60_000;

const IN_FLIGHT = new Set(['running', 'verifying']);

/**
 * The silences for a request about to start, ending `margin` after its expected end. Not
 * configured: nothing to hold. When Alertmanager refuses, `onFailure: block` says why the request
 * may not start; `warn` lets it start with the reason recorded instead of ids.
 */
export async function silenceNode(
  deps: ReconcileDeps,
  request: MaintenanceRequest,
  expectedMs: number,
): Promise<{ ok: true; held?: Held } | { ok: false; why: string }> {
  const config = deps.settings.silences;
  if (!deps.silences || !config) return { ok: true };
  const startsAt = deps.clock.now().toISOString();
  try {
    const made = await makeAll(deps, request, [], expectedMs + config.marginMs);
    return { ok: true, held: { ...made, startsAt } };
  } catch (error) {
    const why = `could not silence the node's alerts in Alertmanager: ${messageOf(error)}`;
    if (config.onFailure === 'block') return { ok: false, why };
    return { ok: true, held: { ids: [], startsAt, endsAt: startsAt, warning: why } };
  }
}

/** Hand back silences made for a request that did not start after all (a lost race). */
export async function releaseSilences(deps: ReconcileDeps, held: Held | undefined): Promise<void> {
  for (const id of held?.ids ?? []) await deps.silences?.expire(id).catch(() => undefined);
}

/**
 * Once a tick: extend what in-flight requests hold, then sweep the rest. Returns a line for each
 * thing that went wrong (reported, never thrown: silences never stop the maintenance itself).
 */
export async function keepSilences(
  deps: ReconcileDeps,
  active: readonly NodeView[],
): Promise<string[]> {
  const config = deps.settings.silences;
  if (!deps.silences || !config) return [];
  const now = deps.clock.now().getTime();
  const held = new Set<string>();
  const problems: string[] = [];
  for (const node of active) {
    const request = node.request;
    if (!request?.silences || !IN_FLIGHT.has(request.state) || request.proven) continue;
    const current = request.silences;
    const complete = current.ids.length === config.matchers.length;
    if (complete && Date.parse(current.endsAt) - now > config.marginMs / 2) {
      current.ids.forEach((id) => held.add(id));
      continue;
    }
    try {
      const renewed = await makeAll(deps, request, current.ids, config.marginMs);
      renewed.ids.forEach((id) => held.add(id));
      const { warning: _cleared, ...rest } = current;
      const next = { ...request, silences: { ...rest, ...renewed } };
      await persist(deps, node, { ok: true, changed: true, request: next });
    } catch (error) {
      current.ids.forEach((id) => held.add(id));
      problems.push(`${request.node}: silences not extended: ${messageOf(error)}`);
    }
  }
  try {
    for (const silence of await deps.silences.listOwn()) {
      if (!held.has(silence.id) && silence.ageMs >= SWEEP_GRACE_MS)
        await deps.silences.expire(silence.id);
    }
  } catch (error) {
    problems.push(`silences not swept: ${messageOf(error)}`);
  }
  return problems;
}

/**
 * One silence per configured matcher set, ending `forMs` from now: the one at the same place in
 * `ids` extended, made anew when there is none or it ended. If one fails, those made in this call
 * are expired again and the error is thrown.
 */
async function makeAll(
  deps: ReconcileDeps,
  request: MaintenanceRequest,
  ids: readonly string[],
  forMs: number,
): Promise<{ ids: string[]; endsAt: string }> {
  const port = deps.silences!;
  const sets = deps.settings.silences!.matchers;
  const made: string[] = [];
  const result: string[] = [];
  let endsAt = '';
  try {
    for (const [i, set] of sets.entries()) {
      const id = ids[i];
      const extended = id === undefined ? undefined : await port.extend(id, forMs);
      const silence =
        extended ??
        (await port.create({
          matchers: matchersFor(set, request.node),
          comment: silenceComment(request),
          forMs,
        }));
      if (!extended) made.push(silence.id);
      result.push(silence.id);
      endsAt = silence.endsAt;
    }
  } catch (error) {
    for (const id of made) await port.expire(id).catch(() => undefined);
    throw error;
  }
  return { ids: result, endsAt };
}
