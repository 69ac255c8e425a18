/**
 * The Deployment controller: one ReplicaSet per pod template (named `<deployment>-<template hash>`,
 * labelled `pod-template-hash`). A changed template gets a new ReplicaSet at full size; older ones are
 * scaled to zero once the new one is fully ready (a surge-only rollout, simpler than RollingUpdate's
 * steps but never below the desired count). Status sums its ReplicaSets.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { recorderFor } from '../events.js';
import { ownerReference, templateHash, templateOf } from './pod-template.js';
import {
  controllerRef,
  keyOf,
  setCondition,
  splitKey,
  type Condition,
  type LabelSelector,
} from './shapes.js';
import { selectorToString } from './selectors.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/deployment';
const HASH_LABEL = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';

const num = (value: unknown, fallback = 0): number =>
  typeof value === 'number' ? value : fallback;

export function startDeploymentController(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;
  const record = recorderFor(store, () => clock.now(), 'deployment-controller', ACTOR);
  const scaled = (deploy: KObject, rs: string, from: number, to: number): void =>
    record({
      regarding: deploy,
      reason: 'ScalingReplicaSet',
      message: `Scaled ${to > from ? 'up' : 'down'} replica set ${rs} from ${from} to ${to}`,
    });

  const ensureReplicaSet = (deploy: KObject, owned: KObject[], want: number): KObject => {
    const template = templateOf(deploy);
    const hash = templateHash(template);
    const name = `${deploy.metadata.name ?? ''}-${hash}`;
    const existing = owned.find((rs) => rs.metadata.name === name);
    const revisionOf = (rs: KObject) => Number(rs.metadata.annotations?.[REVISION] ?? 0);
    if (existing) {
      // An older ReplicaSet whose template is back (a rollback) becomes the newest revision.
      const newest = 1 + Math.max(0, ...owned.filter((rs) => rs !== existing).map(revisionOf));
      const stale = revisionOf(existing) < newest;
      const had = num(existing.spec?.['replicas']);
      if (had === want && !stale) return existing;
      if (had !== want) scaled(deploy, name, had, want);
      return (
        store.mutate(
          R.replicasets,
          deploy.metadata.namespace,
          name,
          (rs) => {
            (rs.spec ??= {})['replicas'] = want;
            if (stale)
              rs.metadata.annotations = { ...rs.metadata.annotations, [REVISION]: String(newest) };
          },
          { actor: ACTOR },
        ) ?? existing
      );
    }
    const revision = 1 + Math.max(0, ...owned.map(revisionOf));
    const selector = (deploy.spec?.['selector'] ?? {}) as LabelSelector;
    const labels = { ...template.metadata?.labels, [HASH_LABEL]: hash };
    scaled(deploy, name, 0, want);
    return store.create(
      R.replicasets,
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name,
          namespace: deploy.metadata.namespace,
          labels,
          annotations: { [REVISION]: String(revision) },
          ownerReferences: [ownerReference(deploy)],
        },
        spec: {
          replicas: want,
          selector: { ...selector, matchLabels: { ...selector.matchLabels, [HASH_LABEL]: hash } },
          template: { ...template, metadata: { ...template.metadata, labels } },
        },
      },
      { actor: ACTOR },
    );
  };

  const reconcile = (key: string): void => {
    const [namespace, name] = splitKey(key);
    const deploy = store.get(R.deployments, namespace, name);
    if (!deploy || deploy.metadata.deletionTimestamp) return;
    const want = num(deploy.spec?.['replicas'], 1);
    // Its ReplicaSets carry the template labels, so the selector narrows the scan (read-only view).
    const selector = deploy.spec?.['selector'] as LabelSelector | undefined;
    const labelSelector = selector ? selectorToString(selector) : '';
    const owned = store
      .listPage(
        R.replicasets,
        { ...(namespace ? { namespace } : {}), ...(labelSelector ? { labelSelector } : {}) },
        { shared: true },
      )
      .items.filter((rs) => controllerRef(rs)?.uid === deploy.metadata.uid);
    const current = ensureReplicaSet(deploy, owned, want);
    // The Deployment carries its newest revision, as upstream's (kubectl rollout undo patches it).
    const revision = current.metadata.annotations?.[REVISION];
    if (revision && deploy.metadata.annotations?.[REVISION] !== revision) {
      store.mutate(
        R.deployments,
        namespace,
        name,
        (d) => void (d.metadata.annotations = { ...d.metadata.annotations, [REVISION]: revision }),
        { actor: ACTOR },
      );
    }
    const newReady = num(current.status?.['readyReplicas']);
    const old = owned.filter((rs) => rs.metadata.name !== current.metadata.name);
    if (newReady >= want) {
      for (const rs of old.filter((r) => num(r.spec?.['replicas']) > 0)) {
        scaled(deploy, rs.metadata.name ?? '', num(rs.spec?.['replicas']), 0);
        store.mutate(
          R.replicasets,
          namespace,
          rs.metadata.name ?? '',
          (r) => {
            (r.spec ??= {})['replicas'] = 0;
          },
          { actor: ACTOR },
        );
      }
    }
    const all = [current, ...old];
    const sum = (field: string): number => all.reduce((n, rs) => n + num(rs.status?.[field]), 0);
    const available = sum('availableReplicas');
    const nowIso = clock.now().toISOString();
    store.mutate(
      R.deployments,
      namespace,
      name,
      (object) => {
        const status = (object.status ??= {}) as Record<string, unknown> & {
          conditions?: Condition[];
        };
        Object.assign(status, {
          observedGeneration: object.metadata.generation ?? 1,
          replicas: sum('replicas'),
          updatedReplicas: num(current.status?.['replicas']),
          readyReplicas: sum('readyReplicas'),
          availableReplicas: available,
          unavailableReplicas: Math.max(0, want - available),
        });
        const ok = available >= want;
        setCondition(
          status,
          {
            type: 'Available',
            status: ok ? 'True' : 'False',
            reason: ok ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
            message: ok
              ? 'Deployment has minimum availability.'
              : 'Deployment does not have minimum availability.',
          },
          nowIso,
        );
        setCondition(
          status,
          {
            type: 'Progressing',
            status: 'True',
            reason: newReady >= want ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated',
            message: `ReplicaSet "${current.metadata.name ?? ''}" ${newReady >= want ? 'has successfully progressed' : 'is progressing'}.`,
          },
          nowIso,
        );
      },
      { actor: ACTOR, subresource: 'status' },
    );
  };

  const queue = createWorkQueue({ name: 'deployment', clock, log: ctx.log, reconcile });
  const stops = [
    store.watch(R.deployments, (e) => {
      if (e.type !== 'DELETED') queue.add(keyOf(e.object));
    }),
    store.watch(R.replicasets, (e) => {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'Deployment') queue.add(`${e.object.metadata.namespace ?? ''}/${ref.name}`);
    }),
  ];
  for (const d of store.list(R.deployments)) queue.add(keyOf(d));
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
