/**
 * The PDB invariant RELIABILITY.md claims, checked on the audit log: no eviction succeeded that its
 * PodDisruptionBudget did not allow. Pods and budgets are replayed from every write, and each
 * successful eviction (`pods/eviction`) is judged on the pods as they were just before it, by the
 * Eviction API's rules (k8s §2), not by the budget status the sim itself keeps: a terminal, pending
 * or terminating pod needs no budget; otherwise exactly one budget must match, and evicting a
 * healthy pod must leave at least `desiredHealthy` healthy pods; an unhealthy one goes only when the
 * budget is met already and wants someone (IfHealthyBudget), when a disruption is allowed anyway, or
 * when its policy is AlwaysAllow.
 */
import {
  fromSelectorObject,
  matchesLabels,
  type LabelSelectorObject,
} from '@kubemaint/kubesim/testing';
import { R, type AuditEntry, type KObject } from '@kubemaint/kubesim';

type Obj = Record<string, unknown>;
const o = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};

const phaseOf = (pod: KObject) => o(pod.status)['phase'];
const terminating = (pod: KObject) => pod.metadata.deletionTimestamp !== undefined;
const ready = (pod: KObject) =>
  ((o(pod.status)['conditions'] as Obj[] | undefined) ?? []).some(
    (c) => c['type'] === 'Ready' && c['status'] === 'True',
  );
const healthy = (pod: KObject) => ready(pod) && !terminating(pod);

/** An int-or-percent of `total`; percentages round up, as the disruption controller does. */
function scaled(value: unknown, total: number): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.ceil((Number(percent[1]) * total) / 100) : Number(value);
}

/**
 * How many healthy pods the budget wants. An integer minAvailable is that number; otherwise the
 * disruption controller scales over the replicas of the pods' controllers (a pod being replaced
 * still counts once), falling back to the live pods when a controller is unknown.
 */
function desiredHealthy(
  pdb: KObject,
  covered: readonly KObject[],
  workloads: ReadonlyMap<string, KObject>,
): number {
  const spec = o(pdb.spec);
  if (spec['maxUnavailable'] === undefined && typeof spec['minAvailable'] !== 'string')
    return Math.max(0, scaled(spec['minAvailable'], covered.length) ?? 0);
  const replicas = new Map<string, number>();
  let unowned = 0;
  for (const pod of covered) {
    const owner = pod.metadata.ownerReferences?.find((r) => r.controller === true);
    const workload = owner ? `${pod.metadata.namespace ?? ''}/${owner.kind}/${owner.name}` : '';
    const scale = o(workloads.get(workload)?.spec)['replicas'];
    if (typeof scale === 'number') replicas.set(workload, scale);
    else if (!terminating(pod)) unowned++;
  }
  const expected = [...replicas.values()].reduce((a, b) => a + b, unowned);
  const maxUnavailable = scaled(spec['maxUnavailable'], expected);
  if (maxUnavailable !== undefined) return Math.max(0, expected - maxUnavailable);
  return Math.max(0, scaled(spec['minAvailable'], expected) ?? 0);
}

const WORKLOADS: Readonly<Record<string, string>> = {
  [R.replicasets]: 'ReplicaSet',
  [R.statefulsets]: 'StatefulSet',
  [R.deployments]: 'Deployment',
};

const key = (e: { namespace?: string; name: string }) => `${e.namespace ?? ''}/${e.name}`;

/** Checks every eviction after `fromRv`; pushes one violation per eviction past its budget. */
export function checkEvictions(
  audit: readonly AuditEntry[],
  fromRv: number,
  violations: string[],
): number {
  const pods = new Map<string, KObject>();
  const pdbs = new Map<string, KObject>();
  /** By `namespace/Kind/name`, for the replicas a budget scales over. */
  const workloads = new Map<string, KObject>();
  let checked = 0;
  for (const entry of audit) {
    const kind = WORKLOADS[entry.resource];
    const store =
      entry.resource === R.pods
        ? pods
        : entry.resource === R.pdbs
          ? pdbs
          : kind
            ? workloads
            : undefined;
    if (!store) continue;
    const eviction = entry.resource === R.pods && entry.subresource === 'eviction';
    if (eviction && entry.rv > fromRv) {
      checked++;
      const problem = evictionProblem(pods.get(key(entry)), { pods, pdbs, workloads });
      if (problem) violations.push(`PDB at rv ${entry.rv}: eviction of ${key(entry)} ${problem}`);
    }
    const id = kind ? `${entry.namespace ?? ''}/${kind}/${entry.name}` : key(entry);
    // A graceful delete is an update that sets deletionTimestamp; the last one removes the object.
    const gone = entry.verb === 'delete' && entry.object.metadata.deletionTimestamp === undefined;
    if (gone) store.delete(id);
    else store.set(id, entry.object);
  }
  return checked;
}

interface Replayed {
  pods: ReadonlyMap<string, KObject>;
  pdbs: ReadonlyMap<string, KObject>;
  workloads: ReadonlyMap<string, KObject>;
}

function evictionProblem(
  pod: KObject | undefined,
  { pods, pdbs, workloads }: Replayed,
): string | undefined {
  if (!pod) return undefined; // created before the log began: nothing to judge it by
  const phase = phaseOf(pod);
  if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || phase === undefined)
    return undefined;
  if (terminating(pod)) return undefined;
  const namespace = pod.metadata.namespace;
  const selects = (pdb: KObject, labels: Record<string, string> | undefined) => {
    const selector = fromSelectorObject(o(pdb.spec)['selector'] as LabelSelectorObject | undefined);
    return selector !== undefined && matchesLabels(selector, labels);
  };
  const matching = [...pdbs.values()].filter(
    (pdb) => pdb.metadata.namespace === namespace && selects(pdb, pod.metadata.labels),
  );
  if (matching.length === 0) return undefined;
  if (matching.length > 1) return `succeeded under ${matching.length} PDBs (the API refuses that)`;
  const pdb = matching[0]!;
  const covered = [...pods.values()].filter(
    (p) => p.metadata.namespace === namespace && selects(pdb, p.metadata.labels),
  );
  const now = covered.filter(healthy).length;
  const desired = desiredHealthy(pdb, covered, workloads);
  const name = pdb.metadata.name ?? '';
  if (healthy(pod)) {
    return now - 1 >= desired
      ? undefined
      : `left ${now - 1} healthy where PDB ${name} wants ${desired}`;
  }
  const always = o(pdb.spec)['unhealthyPodEvictionPolicy'] === 'AlwaysAllow';
  const met = desired > 0 && now >= desired;
  return always || met || now - desired >= 1
    ? undefined
    : `(unhealthy) while PDB ${name} had ${now} healthy of ${desired} wanted`;
}
