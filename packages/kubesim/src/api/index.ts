/**
 * Public face of the sim's API server: start it on a store, and write a kubeconfig for it; the
 * protobuf codec it answers kubectl's typed clients with (for tests that speak protobuf themselves).
 */
export { startApiServer, type ApiServer, type ApiServerOptions } from './server.js';
export type { FaultRule, FaultVerb } from './faults.js';
export type { EvictionResult } from './eviction.js';
export { DEFAULT_VERSION, type ServerVersion } from './discovery.js';
export { writeKubeconfig, kubeconfigYaml, type KubeconfigInput } from '../kubeconfig.js';
export {
  decodeObject as decodeProtobuf,
  decodeWatchEvents as decodeProtobufWatchEvents,
  encodeObject as encodeProtobuf,
  PROTOBUF,
} from './protobuf/index.js';
