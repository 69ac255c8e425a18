/**
 * Starts every controller of the sim on one context; the returned function stops them all.
 */
import type { ControllerContext, Stop } from './context.js';
import { startDaemonSetController } from './daemonset.js';
import { startDeploymentController } from './deployment.js';
import { startDisruptionController } from './disruption.js';
import { startEventTtl } from './event-ttl.js';
import { startGarbageCollector } from './garbage-collector.js';
import { startJobController } from './job.js';
import { startNodeLifecycle } from './node-lifecycle.js';
import { createPodIndex } from './pod-index.js';
import { startReplicaSetController } from './replicaset.js';
import { startScheduler } from './scheduler.js';
import { startStatefulSetController } from './statefulset.js';
import { startCronJobController } from './cronjob.js';
import { startEndpointsController } from './endpoints.js';
import { startKubernetesService } from './kubernetes-service.js';
import { startVolumeClaimController } from './volume-claims.js';

export const CONTROLLERS = {
  scheduler: startScheduler,
  'node-lifecycle': startNodeLifecycle,
  disruption: startDisruptionController,
  deployment: startDeploymentController,
  replicaset: startReplicaSetController,
  daemonset: startDaemonSetController,
  statefulset: startStatefulSetController,
  job: startJobController,
  cronjob: startCronJobController,
  endpoints: startEndpointsController,
  'persistentvolume-binder': startVolumeClaimController,
  'kubernetes-service': startKubernetesService,
  'garbage-collector': startGarbageCollector,
  'event-ttl': (ctx) => startEventTtl(ctx),
} as const satisfies Record<string, (ctx: ControllerContext) => Stop>;

export function startControllers(ctx: ControllerContext): Stop {
  const pods = ctx.pods ?? createPodIndex(ctx.store);
  const shared = { ...ctx, pods };
  const stops = Object.values(CONTROLLERS).map((start) => start(shared));
  return () => {
    for (const stop of stops) stop();
    if (!ctx.pods) pods.stop();
  };
}
