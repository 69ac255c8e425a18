/**
 * Drain a node with kubectl's semantics (reference/kubernetes-semantics.md §1, §10.2): list the node's
 * pods, run the core filter chain (no eviction at all when it reports an error), evict every pod in
 * parallel through the Eviction API, retry refusals (PDB 429s) honouring Retry-After, and wait for
 * each pod to be gone by UID through a watch. Bounded by the drain timeout; while stalled it follows
 * the operator's decision (wait, skip, force). Cordoning is the caller's step (see cordon.ts).
 */
import { selectPodsToDrain, type Pod } from '../../core/drain-filters.js';
import { evictionLanes } from '../../core/eviction-lanes.js';
import type { Clock, PodInfo, PodsPort } from '../ports.js';
import { summarize, type PodState } from './drain-progress.js';
import { DrainRun } from './drain-run.js';
import type { DrainHooks, DrainInput, DrainReport } from './drain-types.js';

const ref = (p: { namespace: string; name: string }): string => `${p.namespace}/${p.name}`;

/** PodInfo → the plain JSON shape the core filters read. */
export function toCorePod(pod: PodInfo): Pod {
  return {
    metadata: {
      name: pod.name,
      namespace: pod.namespace,
      labels: pod.labels,
      annotations: pod.annotations,
      ownerReferences: pod.owners.map((o) => ({ ...o })),
      deletionTimestamp: pod.deletionTimestamp?.toISOString() ?? null,
    },
    spec: {
      nodeName: pod.nodeName,
      volumes: pod.hasEmptyDir ? [{ name: 'emptydir', emptyDir: {} }] : [],
    },
    status: { phase: pod.phase },
  };
}

export async function drainNode(
  ports: { pods: PodsPort; clock: Clock },
  input: DrainInput,
  hooks: DrainHooks = {},
): Promise<DrainReport> {
  const { pods, clock } = ports;
  const { settings, node } = input;
  const started = clock.now();
  const listed = await pods.listPodsOnNode(node, settings.podSelector || undefined);
  const byRef = new Map(listed.map((p) => [ref(p), p]));
  const selection = selectPodsToDrain(
    listed.map(toCorePod),
    {
      node,
      force: settings.force,
      // DaemonSet pods would be recreated on the node at once; kured ignores them too.
      ignoreDaemonSets: true,
      deleteEmptyDirData: settings.deleteEmptyDirData,
      skipWaitForDeleteTimeoutSeconds: Math.floor(settings.skipWaitForDeleteTimeoutMs / 1_000),
      podSelector: settings.podSelector,
      ...(input.selfPod ? { selfPod: input.selfPod } : {}),
    },
    started,
  );
  const targets = selection.evict.map((p) =>
    byRef.get(`${p.metadata.namespace}/${p.metadata.name}`)!,
  );
  const base = {
    evict: targets.map(ref),
    skipped: selection.skip.map((s) => ({
      pod: `${s.pod.metadata.namespace ?? 'default'}/${s.pod.metadata.name}`,
      reason: s.reason,
    })),
    warnings: selection.warnings,
  };
  const states: PodState[] = targets.map((p) => ({
    ref: ref(p),
    uid: p.uid,
    status: 'pending',
    reason: 'not evicted yet',
    ...(p.deletionTimestamp ? { deletionTimestamp: p.deletionTimestamp } : {}),
  }));
  const elapsed = (): number => clock.now().getTime() - started.getTime();

  if (selection.errors.length > 0 || input.dryRun) {
    const blocked = selection.blocked.map((b) => ({
      pod: `${b.pod.metadata.namespace ?? 'default'}/${b.pod.metadata.name}`,
      reason: b.reason,
    }));
    const outcome = selection.errors.length > 0 ? 'blocked' : 'dry-run';
    const progress = summarize(states, undefined);
    const message =
      outcome === 'blocked'
        ? `drain of ${node} refused before any eviction: ${selection.errors.join('; ')}`
        : `dry run: would evict ${targets.length} pods from ${node}`;
    return {
      ...base,
      outcome,
      progress,
      errors: selection.errors,
      remaining: blocked,
      durationMs: elapsed(),
      message,
    };
  }

  const lanes = await readLanes(ports.pods, targets, hooks);
  const run = new DrainRun(ports, input, hooks, states, started, lanes);
  return { ...base, ...(await run.execute(targets)), durationMs: elapsed() };
}

/**
 * The evictions that go one at a time (core/eviction-lanes.ts). Without the PDBs (an executor whose
 * role predates the grant, a failed read) every eviction goes at once, as before: slower under a PDB
 * that allows several, never less safe, since kube-apiserver judges every eviction against its PDB.
 */
async function readLanes(
  pods: PodsPort,
  targets: readonly PodInfo[],
  hooks: DrainHooks,
): Promise<Map<string, string>> {
  if (!pods.listDisruptionBudgets || targets.length < 2) return new Map();
  try {
    return evictionLanes(targets, await pods.listDisruptionBudgets());
  } catch (error) {
    hooks.log?.warn(
      { err: error },
      'PodDisruptionBudgets not read: evicting every pod at once (grant the executor list on poddisruptionbudgets)',
    );
    return new Map();
  }
}

export type { DrainHooks, DrainInput, DrainReport } from './drain-types.js';
