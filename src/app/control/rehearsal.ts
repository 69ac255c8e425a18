/**
 * The report of `kubemaint rehearse` (issue 21), from what the twin recorded: each node's request
 * (its history says when it started and ended, which slot it held), what was sampled after every
 * tick (PDB waits, gates, pods pending) and what the snapshot says no drain can evict. Pure: the
 * compose layer runs the twin and passes what it saw. The JSON form is `RehearsalReport` as it is
 * (schema `kubemaint.io/rehearsal/v1`, docs/rehearse.md): fields are added, never renamed.
 */
import {
  fromSelectorObject,
  matchesSelector,
  type LabelSelectorObject,
} from '@kubemaint/label-selector';
import { selectPodsToDrain, type DrainFilterOptions, type Pod } from '../../core/drain-filters.js';
import type { MaintenanceRequest } from '../../core/request.js';

export const REHEARSAL_SCHEMA = 'kubemaint.io/rehearsal/v1';

/** What the twin saw of one node's request besides its history. */
export interface NodeTrace {
  node: string;
  pdbWaits: { pdb: string; pod: string; reason: string; firstAt: string; lastAt: string }[];
  /** Every distinct gate reason the request was held by. */
  gates: string[];
}

export interface CampaignSample {
  at: string;
  pendingPods: number;
}

export interface NodeReport {
  node: string;
  action: string;
  /** The request's state when the rehearsal ended. */
  state: string;
  slot?: string;
  /** When its executor started (ISO), and when it was done. */
  start?: string;
  end?: string;
  /** `fits` (done before the window closes), `does not fit`, or `no window` (none configured). */
  window: 'fits' | 'does not fit' | 'no window';
  pdbWaits: { pdb: string; pod: string; minutes: number }[];
  cannotEvict: { pod: string; why: string }[];
  gates: string[];
  failure?: string;
}

export interface RehearsalReport {
  schema: typeof REHEARSAL_SCHEMA;
  cluster: string;
  /** Where the twin's clock started (`--at`) and where the rehearsal stopped. */
  at: string;
  endedAt: string;
  /** Why it stopped: `all-ended`, `stuck` (work in flight, nothing moving), `window-closed`, `horizon`, `wall-limit`. */
  ended: string;
  durations: { reboot: DurationUsed; upgrade: DurationUsed };
  window: { closesAt?: string };
  /** What the twin lacks, each with why. */
  skipped: { kind: string; why: string }[];
  campaign: {
    nodes: number;
    done: number;
    finishedInWindow: number;
    /** First start to last end (or to where the rehearsal stopped). */
    totalMinutes: number;
    pendingPodsPeak: { pods: number; at?: string };
    /**
     * Gates that would hold the whole campaign and that the twin does not play (it rehearses as if
     * they let everything through): the pause switch, Prometheus alerts and queries.
     */
    gates: string[];
    firstDecision: string;
  };
  nodes: NodeReport[];
}

export interface DurationUsed {
  ms: number;
  /** Where it came from: `observed` (the cluster's kubemaint-durations) or `config`. */
  source: 'observed' | 'config';
  said: string;
}

export interface ReportInput {
  cluster: string;
  startedAt: Date;
  endedAt: Date;
  ended: string;
  closesAt?: Date;
  durations: RehearsalReport['durations'];
  skipped: RehearsalReport['skipped'];
  requests: readonly MaintenanceRequest[];
  traces: readonly NodeTrace[];
  samples: readonly CampaignSample[];
  cannotEvict: ReadonlyMap<string, NodeReport['cannotEvict']>;
  /** What `campaignGates` says of the cluster and the config. */
  gates: readonly string[];
}

/** What the real cluster holds and the config gates on that the twin leaves open. */
export interface GateFacts {
  /** The pause switch as the cluster holds it now. */
  pause: { paused: boolean; by?: string; at?: string; reason?: string };
  /** `blockers.prometheus.url`, when configured. */
  prometheus?: string;
  /** The rehearsed cluster and the other clusters `blockers.clusters` judges it from, if any. */
  clusters?: { self: string; others: readonly string[] };
}

/** The campaign-wide gates the twin does not play, each as what a person would need to know. */
export function campaignGates(facts: GateFacts): string[] {
  const gates: string[] = [];
  const { pause } = facts;
  if (pause.paused)
    gates.push(
      `the cluster is paused${pause.by ? ` by ${pause.by}` : ''}${pause.at ? ` since ${pause.at}` : ''}${pause.reason ? ` (${pause.reason})` : ''}: nothing starts until kubemaint resume; rehearsed as if resumed`,
    );
  if (facts.prometheus)
    gates.push(
      `blockers.prometheus (${facts.prometheus}) is checked by every tick and not in the twin: an alert or query firing at the time holds every node; rehearsed as if none fires`,
    );
  if (facts.clusters && facts.clusters.others.length > 0)
    gates.push(
      `blockers.clusters judges ${facts.clusters.self} from ${facts.clusters.others.join(', ')} (their order, soak and how many are in maintenance), which the twin does not read: a wave before it still busy, soaking or failed holds every node; rehearsed as if they allow it`,
    );
  return gates;
}

const at = (request: MaintenanceRequest, state: string): string | undefined =>
  request.history.findLast((h) => h.to === state)?.at;

export function rehearsalReport(input: ReportInput): RehearsalReport {
  const traces = new Map(input.traces.map((t) => [t.node, t]));
  const closes = input.closesAt?.getTime();
  const nodes = [...input.requests]
    .sort((a, b) => (at(a, 'running') ?? '~').localeCompare(at(b, 'running') ?? '~'))
    .map((request): NodeReport => {
      const trace = traces.get(request.node);
      const start = at(request, 'running');
      const end = request.state === 'done' ? at(request, 'done') : undefined;
      const fits = end !== undefined && (closes === undefined || Date.parse(end) <= closes);
      return {
        node: request.node,
        action: request.action,
        state: request.state,
        ...(request.slot ? { slot: request.slot } : {}),
        ...(start ? { start } : {}),
        ...(end ? { end } : {}),
        window: closes === undefined ? 'no window' : fits ? 'fits' : 'does not fit',
        pdbWaits: (trace?.pdbWaits ?? []).map((w) => ({
          pdb: w.pdb,
          pod: w.pod,
          minutes: Math.round((Date.parse(w.lastAt) - Date.parse(w.firstAt)) / 60_000),
        })),
        cannotEvict: [...(input.cannotEvict.get(request.node) ?? [])],
        gates: distinctGates(trace?.gates ?? []),
        ...(request.failure ? { failure: request.failure } : {}),
      };
    });
  const starts = nodes.flatMap((n) => (n.start ? [Date.parse(n.start)] : []));
  const ends = nodes.flatMap((n) => (n.end ? [Date.parse(n.end)] : []));
  const stuck = nodes.some((n) => !n.end && n.start);
  const last = stuck ? input.endedAt.getTime() : Math.max(...ends, ...starts);
  const first = Math.min(...starts);
  const peak = input.samples.reduce<{ pods: number; at?: string }>(
    (best, s) => (s.pendingPods > best.pods ? { pods: s.pendingPods, at: s.at } : best),
    { pods: 0 },
  );
  return {
    schema: REHEARSAL_SCHEMA,
    cluster: input.cluster,
    at: input.startedAt.toISOString(),
    endedAt: input.endedAt.toISOString(),
    ended: input.ended,
    durations: input.durations,
    window: input.closesAt ? { closesAt: input.closesAt.toISOString() } : {},
    skipped: [...input.skipped],
    campaign: {
      nodes: nodes.length,
      done: nodes.filter((n) => n.state === 'done').length,
      finishedInWindow: nodes.filter((n) => n.end && n.window !== 'does not fit').length,
      totalMinutes: starts.length ? Math.round((last - first) / 60_000) : 0,
      pendingPodsPeak: peak,
      gates: [...input.gates],
      firstDecision: firstDecision(nodes, input.closesAt, input.gates),
    },
    nodes,
  };
}

/** Gate reasons without the parts that change every tick (who holds the slots, how long ago). */
function distinctGates(gates: readonly string[]): string[] {
  const plain = gates.map((g) =>
    g
      .replace(/\s*\([^)]*\)/g, '')
      .replace(/\bin \d[\dhms]*/g, 'in …')
      .trim(),
  );
  return [...new Set(plain)].slice(0, 5);
}

/** The one thing a person must settle first for the night to go as planned. */
function firstDecision(
  nodes: readonly NodeReport[],
  closesAt: Date | undefined,
  gates: readonly string[],
): string {
  // A paused cluster starts nothing at all: whatever else the report says comes after resuming.
  const paused = gates.find((g) => g.startsWith('the cluster is paused'));
  if (paused) return paused.replace(/; rehearsed as if resumed$/, '');
  const stuck = nodes.find((n) => n.state !== 'done' && n.pdbWaits.length > 0);
  if (stuck) {
    const wait = stuck.pdbWaits[0]!;
    return (
      `${stuck.node} cannot be drained: PDB ${wait.pdb} allows no eviction${wait.pod ? ` of ${wait.pod}` : ''}. ` +
      `Relax the PDB, or decide what drain.onTimeout does with ${stuck.node} (uncordon, force, ask)`
    );
  }
  const refused = nodes.find((n) => n.state !== 'done' && n.cannotEvict.length > 0);
  if (refused) {
    const pod = refused.cannotEvict[0]!;
    return `${refused.node} cannot be drained: ${pod.pod} (${pod.why}). Move or delete it, or set the drain option that allows it`;
  }
  const failed = nodes.find((n) => n.state === 'failed');
  if (failed) return `${failed.node} failed: ${failed.failure ?? 'see its request'}`;
  const late = nodes.filter((n) => n.window === 'does not fit');
  if (late.length > 0)
    return (
      `${late.length} node${late.length === 1 ? '' : 's'} do not finish before the window closes` +
      `${closesAt ? ` at ${closesAt.toISOString()}` : ''}: approve fewer tonight, widen the window, or raise slot.concurrency`
    );
  const gated = nodes.find((n) => n.state !== 'done' && n.gates.length > 0);
  if (gated) return `${gated.node} is held: ${gated.gates[0]}`;
  if (nodes.length === 0) return 'nothing: no node needs maintenance';
  return 'nothing: every node finishes inside the window';
}

export interface EvictionFacts {
  pods: readonly Pod[];
  pdbs: readonly {
    name: string;
    namespace: string;
    selector?: LabelSelectorObject;
    minAvailable?: number | string;
    maxUnavailable?: number | string;
  }[];
}

/**
 * The pods on `node` no drain can evict as the config drains: kubectl's filters (no controller,
 * local storage) and PDBs that never allow a disruption (maxUnavailable 0, or minAvailable at least
 * as many pods as the budget covers).
 */
export function cannotEvictOn(
  node: string,
  facts: EvictionFacts,
  drain: Omit<DrainFilterOptions, 'node'>,
  now: Date,
): NodeReport['cannotEvict'] {
  const here = facts.pods.filter((p) => p.spec?.nodeName === node);
  const chosen = selectPodsToDrain(here, { ...drain, node }, now);
  const out = chosen.blocked.map((b) => ({ pod: podName(b.pod), why: b.reason }));
  for (const pod of chosen.evict) {
    for (const pdb of facts.pdbs) {
      if (pdb.namespace !== (pod.metadata.namespace ?? 'default')) continue;
      // As the eviction API reads a budget: no selector, or one it cannot read, selects nothing.
      const selector = fromSelectorObject(pdb.selector);
      if (!selector || !matchesSelector(selector, pod.metadata.labels)) continue;
      const covered = facts.pods.filter(
        (p) =>
          (p.metadata.namespace ?? 'default') === pdb.namespace &&
          matchesSelector(selector, p.metadata.labels),
      ).length;
      if (neverAllows(pdb, covered))
        out.push({ pod: podName(pod), why: `PDB ${pdb.name} never allows an eviction` });
    }
  }
  return out;
}

function neverAllows(pdb: EvictionFacts['pdbs'][number], covered: number): boolean {
  const count = (value: number | string, round: (n: number) => number) =>
    typeof value === 'number' ? value : round((Number.parseFloat(value) / 100) * covered);
  if (pdb.maxUnavailable !== undefined) return count(pdb.maxUnavailable, Math.ceil) <= 0;
  if (pdb.minAvailable !== undefined) return count(pdb.minAvailable, Math.ceil) >= covered;
  return false;
}

const podName = (pod: Pod): string => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
