/**
 * serve's `/readyz`: one cluster's readiness as it is (readiness.ts); with several clusters, ready
 * while any is worked, the body naming each that is not, so one unreachable cluster does not take
 * the others' Slack receiver out of its Service.
 */
import type { Readiness } from '../adapters/http/ops-server.js';
import type { ClusterLoop } from './cluster-loop.js';

export function readiness(loops: readonly ClusterLoop[], several: boolean): Readiness {
  if (!several)
    return loops[0]?.readiness.ready() ?? { ok: false, why: 'no tick has succeeded yet' };
  const each = loops.map((l) => ({ name: l.name, ...l.readiness.ready() }));
  const lines = each.map(
    (r) => `${r.name}: ${r.ok ? 'ok' : 'not ready'}${r.why ? `, ${r.why}` : ''}`,
  );
  return { ok: each.some((r) => r.ok), why: lines.join('; ') };
}
