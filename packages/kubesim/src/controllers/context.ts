/**
 * What every controller and kubelet of the sim gets: the store, the one clock, the delays, a logger.
 * Every delay is in sim milliseconds on the one scaled clock, so a test at scale 100 runs a five-minute
 * toleration in three wall seconds.
 */
import type { Logger } from '../log.js';
import type { SimClock, Store } from '../types.js';
import type { PodIndex } from './pod-index.js';

export interface SimDelays {
  /** Bound pod → Running (image pull and container start). @default 1000 */
  podStartMs: number;
  /** Running → Ready (readiness probe passes). @default 2000 */
  podReadyMs: number;
  /**
   * Upper bound on how long a simulated container takes to stop after SIGTERM. Pods stay Terminating
   * for min(their grace period, this). @default Infinity (the full terminationGracePeriodSeconds)
   */
  podStopMs: number;
  /** Kubelet Lease renewal (kube-node-lease) and node status heartbeat. @default 10000 */
  heartbeatMs: number;
  /** Node lifecycle controller check period. @default 5000 */
  nodeMonitorPeriodMs: number;
  /** No heartbeat for this long → Ready Unknown + unreachable taints. @default 40000 */
  nodeMonitorGraceMs: number;
  /** Host: a reboot takes effect this long after it was issued (the caller exits first). @default 2000 */
  rebootIssueDelayMs: number;
  /** Host: the node is down this long during a reboot. @default 60000 */
  rebootDowntimeMs: number;
  /** Host: the kubelet is stopped this long during an upgrade. @default 15000 */
  upgradeDowntimeMs: number;
  /** A Job pod whose image is not mapped "runs" this long, then succeeds. @default 5000 */
  jobPodRunMs: number;
  /** First Job pod-failure backoff; doubles per failure, capped at 6 minutes. @default 10000 */
  jobBackoffMs: number;
  /** The scheduler retries pending pods and the garbage collector sweeps for orphans this often. @default 30000 */
  resyncMs: number;
}

export const DEFAULT_DELAYS: SimDelays = {
  podStartMs: 1_000,
  podReadyMs: 2_000,
  podStopMs: Number.POSITIVE_INFINITY,
  heartbeatMs: 10_000,
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGraceMs: 40_000,
  rebootIssueDelayMs: 2_000,
  rebootDowntimeMs: 60_000,
  upgradeDowntimeMs: 15_000,
  jobPodRunMs: 5_000,
  jobBackoffMs: 10_000,
  resyncMs: 30_000,
};

export interface ControllerContext {
  store: Store;
  clock: SimClock;
  delays: SimDelays;
  log: Logger;
  /** Pods by owner and label; `startControllers` provides one (without it, controllers scan). */
  pods?: PodIndex;
}

/** A started controller: call to stop its watches and timers. */
export type Stop = () => void;
