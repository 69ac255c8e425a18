/**
 * Which evictions of a drain go one at a time (issue 34, ADR 0061): those of the pods one
 * PodDisruptionBudget guards. kube-apiserver takes an eviction by updating the PDB's status at the
 * version it read; two evictions under one PDB at once conflict, and the loser sleeps 500 ms before
 * it reads the PDB again (EvictionsRetry in its eviction.go), then conflicts again with the next.
 * Sent one after another, each finds the PDB as the last one left it. Pods no PDB guards, and pods
 * of different PDBs, still go all at once.
 */
import {
  fromSelectorObject,
  matchesSelector,
  type LabelSelectorObject,
} from '@kubemaint/label-selector';

export interface DisruptionBudget {
  namespace: string;
  name: string;
  /** As stored: null or absent selects no pod, `{}` every pod of the namespace (policy/v1). */
  selector: LabelSelectorObject | null | undefined;
}

/**
 * The lane of each pod a PDB guards, by uid: the PDB's `namespace/name` (the first in the list when
 * several match, which the eviction API refuses anyway). A pod without a lane is in none.
 */
export function evictionLanes(
  pods: readonly { uid: string; namespace: string; labels: Readonly<Record<string, string>> }[],
  budgets: readonly DisruptionBudget[],
): Map<string, string> {
  const compiled = budgets.flatMap((budget) => {
    const selector = fromSelectorObject(budget.selector);
    return selector ? [{ lane: `${budget.namespace}/${budget.name}`, budget, selector }] : [];
  });
  const lanes = new Map<string, string>();
  for (const pod of pods) {
    const found = compiled.find(
      (c) => c.budget.namespace === pod.namespace && matchesSelector(c.selector, pod.labels),
    );
    if (found) lanes.set(pod.uid, found.lane);
  }
  return lanes;
}
