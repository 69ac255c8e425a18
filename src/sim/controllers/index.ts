/**
 * Starts every controller of the sim on one context; the returned function stops them all.
 */
import type { ControllerContext, Stop } from './context.js';
import { startDaemonSetController } from './daemonset.js';
import { startDeploymentController } from './deployment.js';
import { startDisruptionController } from './disruption.js';
import { startGarbageCollector } from './garbage-collector.js';
import { startJobController } from './job.js';
import { startNodeLifecycle } from './node-lifecycle.js';
import { startReplicaSetController } from './replicaset.js';
import { startScheduler } from './scheduler.js';
import { startStatefulSetController } from './statefulset.js';

export const CONTROLLERS = {
  scheduler: startScheduler,
  'node-lifecycle': startNodeLifecycle,
  disruption: startDisruptionController,
  deployment: startDeploymentController,
  replicaset: startReplicaSetController,
  daemonset: startDaemonSetController,
  statefulset: startStatefulSetController,
  job: startJobController,
  'garbage-collector': startGarbageCollector,
} as const satisfies Record<string, (ctx: ControllerContext) => Stop>;

export function startControllers(ctx: ControllerContext): Stop {
  const stops = Object.values(CONTROLLERS).map((start) => start(ctx));
  return () => {
    for (const stop of stops) stop();
  };
}
