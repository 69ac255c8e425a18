/**
 * The ReplicaSet controller: keeps `spec.replicas` active pods (not terminal, not terminating) owned by
 * each ReplicaSet, creating pods from the template or deleting the surplus (unscheduled, then not
 * ready, then the newest first), and reports replicas / ready / available in the status.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { recorderFor } from '../events.js';
import { podFromTemplate } from './pod-template.js';
import {
  controllerRef,
  isPodActive,
  isPodReady,
  keyOf,
  podSpec,
  splitKey,
  type LabelSelector,
} from './shapes.js';
import { matchesSelectorObject, selectorToString } from './selectors.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/replicaset';

/** Surplus pods go in this order (`ActivePods` sort): unscheduled, not ready, then youngest. */
function deletionOrder(a: KObject, b: KObject): number {
  const rank = (pod: KObject): number => (podSpec(pod).nodeName ? (isPodReady(pod) ? 2 : 1) : 0);
  return (
    rank(a) - rank(b) ||
    (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '')
  );
}

/** Pods whose controller is `owner` (from the pod index when there is one, else a selector scan). */
export function ownedPods(ctx: ControllerContext, owner: KObject): KObject[] {
  const uid = owner.metadata.uid;
  const selector = owner.spec?.['selector'] as LabelSelector | undefined;
  // A pod relabelled out of the selector is no longer the controller's (it would release it).
  if (ctx.pods) {
    return ctx.pods
      .byOwner(uid ?? '')
      .filter(
        (pod) =>
          controllerRef(pod)?.uid === uid &&
          (!selector || matchesSelectorObject(selector, pod.metadata.labels)),
      );
  }
  const labelSelector = selector ? selectorToString(selector) : '';
  return ctx.store
    .list(R.pods, {
      namespace: owner.metadata.namespace,
      ...(labelSelector ? { labelSelector } : {}),
    })
    .filter((pod) => controllerRef(pod)?.uid === uid);
}

export function startReplicaSetController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;
  const record = recorderFor(store, () => clock.now(), 'replicaset-controller', ACTOR);

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const rs = store.get(R.replicasets, namespace, name);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const want = Number(rs.spec?.['replicas'] ?? 1);
    const pods = ownedPods(ctx, rs);
    const active = pods.filter(isPodActive);
    for (let i = active.length; i < want; i++) {
      const pod = store.create(R.pods, podFromTemplate(rs), { actor: ACTOR });
      record({
        regarding: rs,
        reason: 'SuccessfulCreate',
        message: `Created pod: ${pod.metadata.name ?? ''}`,
      });
    }
    if (active.length > want) {
      for (const pod of [...active].sort(deletionOrder).slice(0, active.length - want)) {
        store.delete(R.pods, namespace, pod.metadata.name ?? '', { actor: ACTOR });
        record({
          regarding: rs,
          reason: 'SuccessfulDelete',
          message: `Deleted pod: ${pod.metadata.name ?? ''}`,
        });
      }
    }
    const current = ownedPods(ctx, rs).filter(isPodActive);
    const ready = current.filter(isPodReady).length;
    store.mutate(
      R.replicasets,
      namespace,
      name,
      (object) => {
        object.status = {
          ...object.status,
          replicas: current.length,
          fullyLabeledReplicas: current.length,
          readyReplicas: ready,
          availableReplicas: ready,
          observedGeneration: object.metadata.generation ?? 1,
        };
      },
      { actor: ACTOR, subresource: 'status' },
    );
  };

  const queue = createWorkQueue({ name: 'replicaset', clock, log: ctx.log, reconcile });
  const stops = [
    store.watch(R.replicasets, (e) => {
      if (e.type !== 'DELETED') queue.add(keyOf(e.object));
    }),
    store.watch(R.pods, (e) => {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'ReplicaSet') queue.add(`${e.object.metadata.namespace ?? ''}/${ref.name}`);
    }),
  ];
  for (const rs of store.list(R.replicasets)) queue.add(keyOf(rs));
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
