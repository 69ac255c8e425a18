/**
 * The scenarios `kubemaint sim --scenario NAME` can start with, each with the one line `--help`
 * shows for it.
 */
import type { Store } from '../types.js';
import { SYSTEM_NAMESPACES, namespace } from './builders.js';
import { SYSTEM_PRIORITY_CLASSES } from '../priority.js';
import { seedDemo } from './demo.js';
import { seedFleet } from './fleet.js';
import type { ScenarioOptions } from './types.js';

export type { ScenarioOptions } from './types.js';

export const SCENARIOS = {
  demo: {
    describe:
      'six nodes: two need a reboot, one kubelet a minor behind; Deployments with PDBs, a DaemonSet, a pod with emptyDir data',
    seed: seedDemo,
  },
  fleet: {
    describe:
      'N nodes (--nodes, default 50) in three pools with --pods-per-node pods each (default 20, max 110), already running',
    seed: seedFleet,
  },
  empty: {
    describe: 'no nodes, only the system namespaces: build your own cluster through the API',
    seed: (store: Store) => {
      for (const name of SYSTEM_NAMESPACES)
        store.create('namespaces', namespace(name), { actor: 'scenario/empty' });
      // What kube-apiserver's bootstrap creates in every cluster (createSim adds them to the others).
      for (const pc of SYSTEM_PRIORITY_CLASSES)
        store.create('priorityclasses.scheduling.k8s.io', pc, { actor: 'scenario/empty' });
    },
  },
} as const satisfies Record<
  string,
  { describe: string; seed: (store: Store, options: ScenarioOptions) => void }
>;

export type ScenarioName = keyof typeof SCENARIOS;

export const isScenarioName = (name: string): name is ScenarioName =>
  Object.hasOwn(SCENARIOS, name);
