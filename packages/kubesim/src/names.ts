/**
 * The few names a program embedding the sim needs before it starts one (a CLI's options and help,
 * its default kubeconfig path): importable without loading the simulator itself, so an embedding
 * CLI does not pay for the whole sim on every command (`@kubemaint/kubesim/names`).
 */
export { DEFAULT_KUBECONFIG } from './kubeconfig-path.js';

/** A kubelet version a simulated host accepts for an upgrade. */
export const KUBELET_VERSION = /^v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;

/** The scenarios `createSim` can start with, each with the one line a `--help` shows for it. */
export const SCENARIO_DESCRIPTIONS = {
  demo: 'six nodes (or --nodes): two need a reboot, one kubelet a minor behind; Deployments with PDBs, a DaemonSet, a pod with emptyDir data',
  fleet:
    'N nodes (--nodes, default 50) in three pools with --pods-per-node pods each (default 20, max 110), already running',
  empty: 'no nodes, only the system namespaces: build your own cluster through the API',
} as const;

export type ScenarioName = keyof typeof SCENARIO_DESCRIPTIONS;

/** Nodes each scenario seeds unless told how many (`empty` has none and takes no count). */
export const SCENARIO_NODES: Readonly<Record<ScenarioName, number>> = {
  demo: 6,
  fleet: 50,
  empty: 0,
};

/** The most nodes a scenario seeds (the benchmark's fleet). */
export const MAX_SCENARIO_NODES = 5000;

/**
 * Why a node count does not fit a scenario, or undefined when it does. The words are an embedding
 * CLI's: `--nodes`.
 */
export function nodesProblem(scenario: ScenarioName, nodes: number): string | undefined {
  if (scenario === 'empty')
    return 'the empty scenario seeds no nodes: leave out --nodes, or choose demo or fleet';
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_SCENARIO_NODES)
    return `--nodes ${nodes} is not a whole number from 1 to ${MAX_SCENARIO_NODES}`;
  return undefined;
}

export const isScenarioName = (name: string): name is ScenarioName =>
  Object.hasOwn(SCENARIO_DESCRIPTIONS, name);
