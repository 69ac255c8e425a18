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
import { SCENARIO_DESCRIPTIONS } from '../names.js';

export type { ScenarioOptions } from './types.js';

export const SCENARIOS = {
  demo: { describe: SCENARIO_DESCRIPTIONS.demo, seed: seedDemo },
  fleet: { describe: SCENARIO_DESCRIPTIONS.fleet, seed: seedFleet },
  empty: {
    describe: SCENARIO_DESCRIPTIONS.empty,
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

export { isScenarioName, type ScenarioName } from '../names.js';
