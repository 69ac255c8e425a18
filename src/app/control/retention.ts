/**
 * Retention (issue 32, ADR 0043): on a skew scan, ended requests beyond `retention.maxAge` or
 * beyond the newest `retention.keepPerNode` of their node are deleted with their decisions, after a
 * one-line summary of each is kept (the history ConfigMap, then an Event on the node); and every
 * request's phase label is set right (old objects without one are labelled here, once), so the
 * tick's read lists only what is not ended. A sweep does at most `RETENTION_PER_SWEEP` deletions and
 * as many relabels: a year of history is worked off over a few scans, each bounded. A failure is
 * reported, not thrown: maintenance goes on, and the next scan tries again.
 */
import {
  planRetention,
  summaryLine,
  type LabelledRequest,
  type RequestPhase,
} from '../../core/retention.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { ClusterPort } from './ports.js';
import type { ControlSettings } from './settings.js';
import type { Clock } from '../../core/clock.js';

export interface RetentionPort {
  /**
   * Every request with the phase label it carries (one paginated list of the whole history), or
   * one node's (a field selector).
   */
  list(node?: string): Promise<LabelledRequest[]>;
  relabel(id: string, phase: RequestPhase): Promise<void>;
  /** Delete an ended request and its decisions; how many decisions went. */
  remove(id: string): Promise<number>;
  /** Add summary lines to the nodes' history (kept within its bounds, core/history.ts). */
  keep(lines: readonly { node: string; line: string }[]): Promise<void>;
  /** Each node's history lines (or one node's), oldest first. */
  history(node?: string): Promise<Record<string, string[]>>;
}

export const RETENTION_PER_SWEEP = 1_000;

/** An Event's message is cut here: a node's sweep may remove many requests at once. */
const EVENT_MESSAGE_MAX = 1_000;

export async function keepRetention(deps: {
  retention?: RetentionPort;
  cluster: Pick<ClusterPort, 'recordEvent'>;
  settings: Pick<ControlSettings, 'retention' | 'detection'>;
  clock: Pick<Clock, 'now'>;
}): Promise<string[]> {
  const { retention } = deps;
  const settings = deps.settings.retention;
  if (!retention || !settings) return [];
  try {
    const plan = planRetention(
      await retention.list(),
      {
        ...settings,
        reproposeAfterMs: deps.settings.detection.reproposeAfterMs,
        limit: RETENTION_PER_SWEEP,
      },
      deps.clock.now(),
    );
    const relabel = plan.relabel.slice(0, RETENTION_PER_SWEEP);
    for (const { id, phase } of relabel) await retention.relabel(id, phase);
    if (plan.remove.length === 0)
      return relabel.length ? [`retention: ${relabel.length} requests relabelled`] : [];
    // The summary is kept before anything is deleted: a sweep that stops half-way leaves a line
    // twice at worst, never a request gone without one.
    const lines = plan.remove.map((request) => ({
      node: request.node,
      line: summaryLine(request),
    }));
    await retention.keep(lines);
    for (const [node, said] of linesByNode(lines))
      // The Event is for `kubectl describe node`; the history is the record, so an Event that
      // cannot be written (the node is gone, say) does not hold the deletion up.
      await deps.cluster
        .recordEvent(node, { reason: 'MaintenanceHistoryKept', message: eventMessage(node, said) })
        .catch(() => undefined);
    let decisions = 0;
    for (const request of plan.remove) decisions += await retention.remove(request.id);
    return [
      `retention: ${plan.remove.length} ended requests and ${decisions} decisions deleted` +
        (relabel.length ? `, ${relabel.length} requests relabelled` : '') +
        (plan.remove.length === RETENTION_PER_SWEEP ? ' (more on the next scan)' : ''),
    ];
  } catch (error) {
    return [`retention: not done: ${(error as Error).message}`];
  }
}

function linesByNode(lines: readonly { node: string; line: string }[]): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  for (const { node, line } of lines) byNode.set(node, [...(byNode.get(node) ?? []), line]);
  return byNode;
}

function eventMessage(node: string, lines: readonly string[]): string {
  const head = `${lines.length} ended request${lines.length === 1 ? '' : 's'} deleted; kept as history (kubemaint history ${node}): `;
  const text = head + lines.join('; ');
  return text.length > EVENT_MESSAGE_MAX ? `${text.slice(0, EVENT_MESSAGE_MAX - 1)}…` : text;
}

/** What `kubemaint history NODE` and the status page show of one node, oldest first. */
export interface NodeHistory {
  node: string;
  /** Summaries of the requests retention deleted. */
  earlier: string[];
  /** The requests still in the cluster. */
  kept: MaintenanceRequest[];
}

export async function nodeHistory(
  deps: { retention?: RetentionPort },
  node: string,
): Promise<NodeHistory> {
  if (!deps.retention) return { node, earlier: [], kept: [] };
  const [earlier, kept] = await Promise.all([
    deps.retention.history(node),
    deps.retention.list(node),
  ]);
  return {
    node,
    earlier: earlier[node] ?? [],
    kept: kept
      .map((entry) => entry.request)
      // The field selector narrows the list; the spec says whose it is (and an apiserver without
      // selectable fields sends every request).
      .filter((request) => request.node === node)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
  };
}
