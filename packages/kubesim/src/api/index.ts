/**
 * Public face of the sim's API server: start it on a store, and write a kubeconfig for it.
 */
export { startApiServer, type ApiServer, type ApiServerOptions } from './server.js';
export type { FaultRule, FaultVerb } from './faults.js';
export type { EvictionResult } from './eviction.js';
export { DEFAULT_VERSION, type ServerVersion } from './discovery.js';
export { writeKubeconfig, kubeconfigYaml, type KubeconfigInput } from '../kubeconfig.js';
