/**
 * The disruption controller: keeps every PodDisruptionBudget's status current (healthy counts,
 * `disruptionsAllowed`, `observedGeneration`, the `DisruptionAllowed` condition, stale `disruptedPods`
 * dropped) as pods come and go, so evictions see the budget a real cluster would show.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { computePdbStatus, DELETION_TIMEOUT_MS } from './pdb-status.js';
import { matchesSelector } from './selectors.js';
import {
  controllerRef,
  keyOf,
  setCondition,
  splitKey,
  type Condition,
  type LabelSelector,
} from './shapes.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/disruption';

const replicasOf = (object: KObject | undefined): number | undefined => {
  const replicas = object?.spec?.['replicas'];
  return typeof replicas === 'number' ? replicas : undefined;
};

export function startDisruptionController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;

  /** Σ spec.replicas of the distinct controllers (an RS owned by a Deployment counts as the Deployment). */
  const controllerReplicas = (namespace: string, pods: readonly KObject[]): number | undefined => {
    const seen = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerRef(pod);
      if (!ref) return undefined;
      let owner: KObject | undefined;
      if (ref.kind === 'ReplicaSet') {
        owner = store.get(R.replicasets, namespace, ref.name);
        const up = owner && controllerRef(owner);
        if (up?.kind === 'Deployment') owner = store.get(R.deployments, namespace, up.name);
      } else if (ref.kind === 'StatefulSet') {
        owner = store.get(R.statefulsets, namespace, ref.name);
      } else if (ref.kind === 'Deployment') {
        owner = store.get(R.deployments, namespace, ref.name);
      }
      const replicas = replicasOf(owner);
      if (replicas === undefined || !owner) return undefined;
      seen.set(owner.metadata.uid ?? keyOf(owner), replicas);
    }
    return [...seen.values()].reduce((a, b) => a + b, 0);
  };

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const pdb = store.get(R.pdbs, namespace, name);
    if (!pdb || !namespace) return;
    const selector = pdb.spec?.['selector'] as LabelSelector | undefined;
    const pods = store
      .list(R.pods, { namespace })
      .filter((pod) => matchesSelector(selector, pod.metadata.labels));
    const now = clock.now().getTime();
    const nowIso = new Date(now).toISOString();
    const result = computePdbStatus({
      pdb,
      pods,
      controllerReplicas: controllerReplicas(namespace, pods),
      now,
    });
    store.mutate(
      R.pdbs,
      namespace,
      name,
      (object) => {
        const status = (object.status ??= {}) as Record<string, unknown> & {
          conditions?: Condition[];
        };
        if (result.ok) {
          delete status['disruptedPods'];
          Object.assign(status, result.status);
        } else {
          Object.assign(status, {
            observedGeneration: object.metadata.generation ?? 1,
            disruptionsAllowed: 0,
          });
        }
        const allowed = result.ok && result.status.disruptionsAllowed > 0;
        setCondition(
          status,
          result.ok
            ? {
                type: 'DisruptionAllowed',
                status: allowed ? 'True' : 'False',
                reason: allowed ? 'SufficientPods' : 'InsufficientPods',
                message: '',
              }
            : {
                type: 'DisruptionAllowed',
                status: 'False',
                reason: 'SyncFailed',
                message: result.message,
              },
          nowIso,
        );
      },
      { actor: ACTOR, subresource: 'status' },
    );
    if (result.ok && result.status.disruptedPods) queue.addAfter(key, DELETION_TIMEOUT_MS + 1_000);
  };

  const queue = createWorkQueue({ name: 'disruption', clock, log: ctx.log, reconcile });
  const forNamespace = (namespace: string | undefined, labels?: Record<string, string>): void => {
    if (!namespace) return;
    for (const pdb of store.list(R.pdbs, { namespace })) {
      const selector = pdb.spec?.['selector'] as LabelSelector | undefined;
      if (!labels || matchesSelector(selector, labels)) queue.add(keyOf(pdb));
    }
  };
  const stops = [
    store.watch(R.pdbs, (e) => {
      if (e.type !== 'DELETED') queue.add(keyOf(e.object));
    }),
    store.watch(R.pods, (e) =>
      forNamespace(e.object.metadata.namespace, e.object.metadata.labels ?? {}),
    ),
    ...[R.replicasets, R.deployments, R.statefulsets].map((resource) =>
      store.watch(resource, (e) => forNamespace(e.object.metadata.namespace)),
    ),
    clock.every(ctx.delays.resyncMs, () => {
      for (const pdb of store.list(R.pdbs)) queue.add(keyOf(pdb));
    }),
  ];
  for (const pdb of store.list(R.pdbs)) queue.add(keyOf(pdb));
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
