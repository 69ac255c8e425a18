/**
 * Building blocks for test beds built around the sim: an API server alone over a store, the
 * controllers and kubelet status writers to run beside it, fault randomness, selectors, and waiting.
 * Stable enough for tests; a program embedding the sim uses the package root.
 */
export { startSimApi, statusBody, type SimApi, type StatusBody } from './sim-api.js';
export { waitFor, isReady } from './wait.js';
export { startControllers } from '../controllers/index.js';
export { DEFAULT_DELAYS, type SimDelays, type ControllerContext } from '../controllers/context.js';
export { applyNodeStatus, initialNodeInfo } from '../kubelet-node-status.js';
export { markTerminated } from '../kubelet-pod-status.js';
export { seededRandom } from '../api/faults.js';
export { fromSelectorObject, matchesLabels, type LabelSelectorObject } from '../selectors.js';
export type { ClientCertificate } from '../client-certificates.js';
export { findCondition, type Condition } from '../controllers/shapes.js';
