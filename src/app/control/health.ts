/**
 * The fleet-health gates' facts, gathered once per dispatch for every candidate: the Prometheus
 * query gates (`blockers.prometheus.queries`), the nodes that flapped (`blockers.flapping`, whose
 * history this read also brings up to date) and the soak after the last node came back
 * (`blockers.soak`, from the nodes' `kubemaint.io/last-maintenance`). A query without an answer is
 * `{ error }`, which blocks.
 */
import type { PolicyFacts, Readable } from '../../core/policy.js';
import type { ReconcileDeps } from './deps.js';
import { readable } from './facts.js';
import { flappingFacts, lastMaintenanceAt, recordNotReady } from './not-ready.js';
import type { NodeView, QueryPort } from './ports.js';

export type HealthFacts = Pick<PolicyFacts, 'queries' | 'flapping' | 'soak'>;

export async function healthFacts(
  deps: ReconcileDeps & { queries?: QueryPort },
  fleet: Readable<NodeView[]>,
  now: Date,
): Promise<HealthFacts> {
  const { blockers } = deps.settings;
  const facts: HealthFacts = {};
  const gates = blockers.queries ?? [];
  const port = deps.queries;
  if (gates.length > 0) {
    facts.queries = await Promise.all(
      gates.map(async (gate) => ({
        gate,
        answer: port
          ? await readable(() => port.answer(gate))
          : { error: 'no Prometheus to ask (blockers.prometheus.url)' },
      })),
    );
  }
  if (blockers.flapping) {
    facts.flapping =
      'error' in fleet
        ? fleet
        : flappingFacts(deps.settings, await recordNotReady(deps, fleet), now);
  }
  // An unreadable fleet already blocks (the unhealthy gate says so); the soak needs no second word.
  if (blockers.soakMs && !('error' in fleet)) facts.soak = soakFacts(fleet, blockers.soakMs);
  return facts;
}

/** The node that came back last (its `kubemaint.io/last-maintenance`), and the soak after it. */
export function soakFacts(
  fleet: readonly NodeView[],
  ms: number,
): NonNullable<PolicyFacts['soak']> {
  let last: { node: string; at: Date } | undefined;
  for (const node of fleet) {
    const at = lastMaintenanceAt(node);
    if (at !== undefined && (!last || at > last.at)) last = { node: node.name, at };
  }
  return { ms, ...(last ? { last } : {}) };
}
