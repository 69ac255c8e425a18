/**
 * The StatefulSet controller, simple: pods `<name>-0 … <name>-(n-1)` with stable names, created in
 * order (OrderedReady: the next one only when every lower ordinal is Ready; Parallel: all at once),
 * removed from the highest ordinal down when scaled in, re-created under the same name after eviction.
 * Each template is a ControllerRevision (controller-revisions.ts) whose name labels its pods; with the
 * RollingUpdate strategy a changed template replaces the pods from the highest ordinal down, one at a
 * time once all are Ready, and the status carries `currentRevision`/`updateRevision` as
 * `kubectl rollout status sts` reads them (OnDelete: only pods someone deletes come back new).
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { podFromTemplate } from './pod-template.js';
import { ownedPods } from './replicaset.js';
import { controllerRef, isPodActive, isPodReady, keyOf, splitKey } from './shapes.js';
import { createWorkQueue } from './work-queue.js';
import { REVISION_HASH, syncRevisions } from './controller-revisions.js';

const ACTOR = 'controller/statefulset';

const ordinalOf = (pod: KObject): number =>
  Number(/-(\d+)$/.exec(pod.metadata.name ?? '')?.[1] ?? -1);

export function startStatefulSetController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const sts = store.get(R.statefulsets, namespace, name);
    if (!sts || sts.metadata.deletionTimestamp) return;
    const want = Number(sts.spec?.['replicas'] ?? 1);
    const parallel = sts.spec?.['podManagementPolicy'] === 'Parallel';
    const pods = ownedPods(ctx, sts);
    const inUse = new Set(pods.map((p) => p.metadata.labels?.[REVISION_HASH] ?? ''));
    const { current } = syncRevisions(store, sts, { actor: ACTOR, inUse });
    const updateRevision = current.metadata.name ?? '';
    const byName = new Map(pods.map((pod) => [pod.metadata.name ?? '', pod]));
    let complete = true;
    for (let ordinal = 0; ordinal < want; ordinal++) {
      const podName = `${name}-${ordinal}`;
      const pod = byName.get(podName);
      if (pod) {
        // A finished pod is replaced; a terminating one must go first (names are stable).
        if (isPodActive(pod) || pod.metadata.deletionTimestamp) {
          if (!isPodReady(pod) || pod.metadata.deletionTimestamp) complete = false;
          if (!parallel && !isPodReady(pod)) break;
          continue;
        }
        store.delete(R.pods, namespace, podName, { actor: ACTOR, gracePeriodSeconds: 0 });
        complete = false;
        break;
      }
      complete = false;
      store.create(
        R.pods,
        podFromTemplate(sts, {
          name: podName,
          labels: {
            'statefulset.kubernetes.io/pod-name': podName,
            'apps.kubernetes.io/pod-index': String(ordinal),
            [REVISION_HASH]: updateRevision,
          },
          spec: { hostname: podName },
        }),
        { actor: ACTOR },
      );
      if (!parallel) break;
    }
    for (const pod of pods) {
      if (ordinalOf(pod) >= want && !pod.metadata.deletionTimestamp) {
        store.delete(R.pods, namespace, pod.metadata.name ?? '', { actor: ACTOR });
      }
    }
    const strategy = (sts.spec?.['updateStrategy'] ?? {}) as {
      type?: string;
      rollingUpdate?: { partition?: number };
    };
    const active = ownedPods(ctx, sts).filter(isPodActive);
    // RollingUpdate: once every pod runs Ready, the highest-ordinal old one goes (and comes back new).
    if (complete && strategy.type !== 'OnDelete') {
      const partition = strategy.rollingUpdate?.partition ?? 0;
      const stale = active
        .filter(
          (p) => ordinalOf(p) >= partition && p.metadata.labels?.[REVISION_HASH] !== updateRevision,
        )
        .sort((a, b) => ordinalOf(b) - ordinalOf(a))[0];
      if (stale) store.delete(R.pods, namespace, stale.metadata.name ?? '', { actor: ACTOR });
    }
    const ready = active.filter(isPodReady).length;
    const updated = active.filter((p) => p.metadata.labels?.[REVISION_HASH] === updateRevision);
    store.mutate(
      R.statefulsets,
      namespace,
      name,
      (object) => {
        const before = object.status?.['currentRevision'];
        const currentRevision =
          typeof before === 'string' && updated.length < want ? before : updateRevision;
        object.status = {
          ...object.status,
          replicas: active.length,
          currentReplicas: active.filter(
            (p) => p.metadata.labels?.[REVISION_HASH] === currentRevision,
          ).length,
          updatedReplicas: updated.length,
          readyReplicas: ready,
          availableReplicas: ready,
          currentRevision,
          updateRevision,
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
