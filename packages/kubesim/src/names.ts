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
  demo: 'six nodes: two need a reboot, one kubelet a minor behind; Deployments with PDBs, a DaemonSet, a pod with emptyDir data',
  fleet:
    'N nodes (--nodes, default 50) in three pools with --pods-per-node pods each (default 20, max 110), already running',
  empty: 'no nodes, only the system namespaces: build your own cluster through the API',
} as const;

export type ScenarioName = keyof typeof SCENARIO_DESCRIPTIONS;

export const isScenarioName = (name: string): name is ScenarioName =>
  Object.hasOwn(SCENARIO_DESCRIPTIONS, name);
