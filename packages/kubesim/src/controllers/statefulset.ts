/**
 * The StatefulSet controller, simple: pods `<name>-0 … <name>-(n-1)` with stable names, created in
 * order (OrderedReady: the next one only when every lower ordinal is Ready; Parallel: all at once),
 * removed from the highest ordinal down when scaled in, re-created under the same name after eviction.
 */
import { R } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { podFromTemplate } from './pod-template.js';
import { ownedPods } from './replicaset.js';
import { controllerRef, isPodActive, isPodReady, keyOf, splitKey } from './shapes.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/statefulset';

export function startStatefulSetController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const sts = store.get(R.statefulsets, namespace, name);
    if (!sts || sts.metadata.deletionTimestamp) return;
    const want = Number(sts.spec?.['replicas'] ?? 1);
    const parallel = sts.spec?.['podManagementPolicy'] === 'Parallel';
    const pods = ownedPods(ctx, sts);
    const byName = new Map(pods.map((pod) => [pod.metadata.name ?? '', pod]));
    for (let ordinal = 0; ordinal < want; ordinal++) {
      const podName = `${name}-${ordinal}`;
      const pod = byName.get(podName);
      if (pod) {
        // A finished pod is replaced; a terminating one must go first (names are stable).
        if (isPodActive(pod) || pod.metadata.deletionTimestamp) {
          if (!parallel && !isPodReady(pod)) break;
          continue;
        }
        store.delete(R.pods, namespace, podName, { actor: ACTOR, gracePeriodSeconds: 0 });
        break;
      }
      store.create(
        R.pods,
        podFromTemplate(sts, {
          name: podName,
          labels: {
            'statefulset.kubernetes.io/pod-name': podName,
            'apps.kubernetes.io/pod-index': String(ordinal),
          },
          spec: { hostname: podName },
        }),
        { actor: ACTOR },
      );
      if (!parallel) break;
    }
    for (const pod of pods) {
      const ordinal = Number(/-(\d+)$/.exec(pod.metadata.name ?? '')?.[1] ?? -1);
      if (ordinal >= want && !pod.metadata.deletionTimestamp) {
        store.delete(R.pods, namespace, pod.metadata.name ?? '', { actor: ACTOR });
      }
    }
    const active = ownedPods(ctx, sts).filter(isPodActive);
    const ready = active.filter(isPodReady).length;
    store.mutate(
      R.statefulsets,
      namespace,
      name,
      (object) => {
        object.status = {
          ...object.status,
          replicas: active.length,
          currentReplicas: active.length,
          updatedReplicas: active.length,
          readyReplicas: ready,
          availableReplicas: ready,
          observedGeneration: object.metadata.generation ?? 1,
        };
      },
      { actor: ACTOR, subresource: 'status' },
    );
  };

  const queue = createWorkQueue({ name: 'statefulset', clock, log: ctx.log, reconcile });
  const stops = [
    store.watch(R.statefulsets, (e) => {
      if (e.type !== 'DELETED') queue.add(keyOf(e.object));
    }),
    store.watch(R.pods, (e) => {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'StatefulSet')
        queue.add(`${e.object.metadata.namespace ?? ''}/${ref.name}`);
    }),
  ];
  for (const sts of store.list(R.statefulsets)) queue.add(keyOf(sts));
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
