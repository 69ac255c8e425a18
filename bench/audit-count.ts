/**
 * Counts, from kube-apiserver's own audit log, the requests each of kubemaint's identities made in a
 * span of time: serve and the executor (a process per Job, which a client-side counter cannot see),
 * by verb and resource, and how many of them were lists with no selector (a node list without one
 * reads the whole fleet). Request counts do not depend on the machine's load, so they say where the
 * time goes at 5,000 nodes better than any wall time on a shared machine.
 */
import {
  completedSince,
  readAuditStages,
  resourceOf,
  type AuditEntry,
} from '../test/support/real-audit.js';

export const SERVE_USER = 'system:serviceaccount:kubemaint:kubemaint-serve';
export const EXECUTOR_USER = 'system:serviceaccount:kubemaint:kubemaint-executor';

export interface IdentityCount {
  requests: number;
  /** Lists (not watches) of all nodes, every page counted once: the O(fleet) reads. */
  fullNodeListPages: number;
  /** Lists of pods with neither a label nor a field selector. */
  unselectedPodLists: number;
  /** Watch streams that ended in the span (each one reopened after): reconnects and relists. */
  watchesEnded: number;
  /** Watch streams open when the span ended (the audit log's ResponseStarted with no end yet). */
  watchesOpen: number;
  /** `list nodes ?labelSelector` → count, the top ones. */
  lines: [string, number][];
}

type Entry = AuditEntry & { requestURI?: string };

const selectorsOf = (uri: string): string => {
  const query = new URLSearchParams(uri.split('?')[1] ?? '');
  const parts = ['labelSelector', 'fieldSelector']
    .map((key) => (query.get(key) ? `${key}=${query.get(key)}` : ''))
    .filter(Boolean);
  if (query.get('watch') === 'true' || query.get('watch') === '1') parts.unshift('watch');
  return parts.join(' ');
};

export function countAudit(
  cluster: { dir: string },
  since: string,
  until: string,
  user: string,
): IdentityCount {
  // The log read and parsed once: the completed requests and the watches still open come from it.
  const stages = readAuditStages(cluster);
  const entries = (completedSince(stages, since) as Entry[]).filter(
    (e) => e.stageTimestamp <= until && e.user.username === user,
  );
  const lines = new Map<string, number>();
  let fullNodeListPages = 0;
  let unselectedPodLists = 0;
  for (const e of entries) {
    const uri = e.requestURI ?? '';
    const selectors = selectorsOf(uri);
    const line = `${e.verb} ${resourceOf(e)}${selectors ? ` ${selectors}` : ''}`;
    lines.set(line, (lines.get(line) ?? 0) + 1);
    if (
      e.verb === 'list' &&
      resourceOf(e) === 'nodes' &&
      !/labelSelector=|fieldSelector=/.test(uri)
    )
      fullNodeListPages += 1;
    if (e.verb === 'list' && resourceOf(e) === 'pods' && !/labelSelector=|fieldSelector=/.test(uri))
      unselectedPodLists += 1;
  }
  return {
    requests: entries.length,
    fullNodeListPages,
    unselectedPodLists,
    watchesEnded: entries.filter((e) => e.verb === 'watch').length,
    watchesOpen: openWatches(stages, until, user),
    lines: [...lines].sort((a, b) => b[1] - a[1]).slice(0, 25),
  };
}

/** The user's watches that had started and not ended at `at`: each is a stream the server holds. */
function openWatches(stages: readonly AuditEntry[], at: string, user: string): number {
  const open = new Set<string>();
  for (const e of stages) {
    if (e.verb !== 'watch' || e.user.username !== user || e.stageTimestamp > at) continue;
    if (e.stage === 'ResponseStarted') open.add(e.auditID ?? '');
    else if (e.stage === 'ResponseComplete') open.delete(e.auditID ?? '');
  }
  return open.size;
}
