/**
 * A node no drain can empty (issue 21's case): one replica pinned to it and a PodDisruptionBudget that
 * never lets that replica go (minAvailable 1 of 1). The budget selects by `matchLabels` or by
 * `matchExpressions`, so both ways a real budget is written are covered.
 */
import { R, type Sim } from '@kubemaint/kubesim';
import { isReady, waitFor } from './sim.js';

export interface GuardedPod {
  /** The Deployment's and the PDB's name, in namespace `default`. */
  name: string;
  node: string;
  selector: 'matchLabels' | 'matchExpressions';
}

export async function guardPodOnNode(sim: Pick<Sim, 'store'>, guard: GuardedPod): Promise<void> {
  const labels = { app: guard.name };
  sim.store.create(R.deployments, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: guard.name, namespace: 'default', labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': guard.node },
          containers: [{ name: 'app', image: 'example.invalid/app:1' }],
        },
      },
    },
  });
  const selector =
    guard.selector === 'matchLabels'
      ? { matchLabels: labels }
      : { matchExpressions: [{ key: 'app', operator: 'In', values: [guard.name] }] };
  sim.store.create(R.pdbs, {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: guard.name, namespace: 'default' },
    spec: { selector, minAvailable: 1 },
  });
  await waitFor(
    `the ${guard.name} pod running on ${guard.node}`,
    () =>
      sim.store
        .list(R.pods, { namespace: 'default' })
        .find((p) => p.metadata.labels?.['app'] === guard.name && isReady(p)),
    60_000,
  );
}
