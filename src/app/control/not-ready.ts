/**
 * The flapping gate's facts (`blockers.flapping`): each time the control plane reads the whole fleet
 * (dispatch, skew scans) it brings every node's NotReady history up to date in the node's own
 * annotation (core/not-ready-history.ts, ADR 0020) and counts the episodes within the span.
 * Writing the first record of a fleet touches every node once; those first records are spread
 * over reads (at most FIRST_RECORDS_PER_READ each), while an episode is always written at once.
 */
import {
  ANN_NOT_READY,
  observe,
  ownTransition,
  readRecord,
  timesNotReady,
  writeRecord,
  type NotReadyRecord,
} from '../../core/not-ready-history.js';
import type { PolicyFacts } from '../../core/policy.js';
import { ANN_LAST_MAINTENANCE } from '../../core/names.js';
import type { ReconcileDeps } from './deps.js';
import type { NodeView } from './ports.js';

export const FIRST_RECORDS_PER_READ = 100;

const IN_FLIGHT = new Set(['running', 'verifying']);

/** Update every node's record from this read of the fleet; the records as they are now. */
export async function recordNotReady(
  deps: Pick<ReconcileDeps, 'cluster' | 'clock' | 'settings'>,
  fleet: readonly NodeView[],
): Promise<Map<string, NotReadyRecord>> {
  const flapping = deps.settings.blockers.flapping;
  const records = new Map<string, NotReadyRecord>();
  if (!flapping) return records;
  const now = deps.clock.now();
  // A reboot kubemaint verified ends at most this long after the node went down.
  const ownSpanMs = Math.max(...Object.values(deps.settings.nodeTimeoutMs));
  let firstRecords = 0;
  for (const node of fleet) {
    const record = readRecord(node.annotations[ANN_NOT_READY]);
    records.set(node.name, record);
    const ours = ownTransition(
      node.readySince,
      {
        inFlight: IN_FLIGHT.has(node.request?.state ?? ''),
        ...maintainedAt(node),
      },
      ownSpanMs,
    );
    const next = observe(
      record,
      { status: node.ready, ...(node.readySince ? { since: node.readySince } : {}) },
      { now, keepMs: flapping.withinMs, ours },
    );
    if (!next) continue;
    const first = record.status === undefined && next.episodes.length === 0;
    if (first && ++firstRecords > FIRST_RECORDS_PER_READ) continue;
    records.set(node.name, next);
    // A write that fails is tried again on the next read, from the node as it is then.
    await deps.cluster
      .patchNode(node.name, { annotations: { [ANN_NOT_READY]: writeRecord(next) } })
      .catch(() => undefined);
  }
  return records;
}

/** The gate's facts from the records: how often each node went NotReady within the span. */
export function flappingFacts(
  settings: ReconcileDeps['settings'],
  records: ReadonlyMap<string, NotReadyRecord>,
  now: Date,
): PolicyFacts['flapping'] {
  const flapping = settings.blockers.flapping;
  if (!flapping) return undefined;
  const nodes = [...records]
    .map(([name, record]) => ({ name, times: timesNotReady(record, now, flapping.withinMs) }))
    .filter((n) => n.times > 0);
  return { nodes, max: flapping.times, withinMs: flapping.withinMs };
}

function maintainedAt(node: NodeView): { lastMaintenanceAt?: string } {
  const at = lastMaintenanceAt(node);
  return at ? { lastMaintenanceAt: at.toISOString() } : {};
}

/** When the node's last maintenance was proven back, from its annotation; undefined when unknown. */
export function lastMaintenanceAt(node: Pick<NodeView, 'annotations'>): Date | undefined {
  try {
    const raw = node.annotations[ANN_LAST_MAINTENANCE];
    const at = raw === undefined ? undefined : (JSON.parse(raw) as { at?: unknown }).at;
    const time = typeof at === 'string' ? new Date(at) : undefined;
    return time && !Number.isNaN(time.getTime()) ? time : undefined;
  } catch {
    return undefined;
  }
}
