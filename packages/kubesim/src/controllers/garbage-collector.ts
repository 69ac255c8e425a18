/**
 * The garbage collector: when an owner is deleted, its dependents (objects whose `ownerReferences`
 * name its uid) are deleted too (Background/Foreground propagation) or released (Orphan: the reference
 * is removed), as the delete's propagation policy says. A periodic sweep catches dependents whose
 * owners vanished while nobody watched.
 */
import { R, type KObject, type PropagationPolicy, type ResourceKey } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { createWorkQueue } from './work-queue.js';

const ACTOR = 'controller/garbage-collector';
const OWNERS: readonly ResourceKey[] = [
  R.deployments,
  R.replicasets,
  R.daemonsets,
  R.statefulsets,
  R.jobs,
  R.cronjobs,
  R.services,
];
const DEPENDENTS: readonly ResourceKey[] = [
  R.replicasets,
  R.pods,
  R.jobs,
  R.controllerrevisions,
  R.endpointslices,
];

export function startGarbageCollector(ctx: ControllerContext): Stop {
  const { store, clock } = ctx;
  /** uid → how its deletion propagates, for owners deleted since the last run. */
  const deleted = new Map<string, { namespace: string | undefined; policy: PropagationPolicy }>();

  const release = (
    resource: ResourceKey,
    dependent: KObject,
    goneUids: ReadonlySet<string>,
  ): void => {
    const { namespace, name } = dependent.metadata;
    store.mutate(
      resource,
      namespace,
      name ?? '',
      (object) => {
        const refs = (object.metadata.ownerReferences ?? []).filter(
          (ref) => !goneUids.has(ref.uid),
        );
        if (refs.length > 0) object.metadata.ownerReferences = refs;
        else delete object.metadata.ownerReferences;
      },
      { actor: ACTOR },
    );
  };

  const collect = (
    namespace: string | undefined,
    isGone: (uid: string) => PropagationPolicy | undefined,
  ): void => {
    for (const resource of DEPENDENTS) {
      for (const dependent of store.listPage(resource, namespace ? { namespace } : {}, {
        shared: true,
      }).items) {
        const refs = dependent.metadata.ownerReferences ?? [];
        const gone = refs.filter((ref) => isGone(ref.uid) !== undefined);
        if (gone.length === 0) continue;
        const orphan = gone.some((ref) => isGone(ref.uid) === 'Orphan');
        const goneUids = new Set(gone.map((ref) => ref.uid));
        if (orphan || gone.length < refs.length) {
          release(resource, dependent, goneUids);
        } else if (!dependent.metadata.deletionTimestamp) {
          store.delete(resource, dependent.metadata.namespace, dependent.metadata.name ?? '', {
            actor: ACTOR,
            propagationPolicy: 'Background',
          });
        }
      }
    }
  };

  const queue = createWorkQueue({
    name: 'garbage-collector',
    clock,
    log: ctx.log,
    reconcile: (key) => {
      if (key === 'sweep') return sweep();
      const batch = new Map(deleted);
      deleted.clear();
      const namespaces = new Set([...batch.values()].map((d) => d.namespace));
      for (const namespace of namespaces) collect(namespace, (uid) => batch.get(uid)?.policy);
    },
  });

  const sweep = (): void => {
    const live = new Set<string>();
    for (const resource of OWNERS) {
      for (const owner of store.listPage(resource, {}, { shared: true }).items)
        live.add(owner.metadata.uid ?? '');
    }
    const ownerKinds = new Set([
      'Deployment',
      'ReplicaSet',
      'DaemonSet',
      'StatefulSet',
      'Job',
      'CronJob',
      'Service',
    ]);
    const kindOf = new Map<string, string>();
    for (const resource of DEPENDENTS) {
      for (const dependent of store.listPage(resource, {}, { shared: true }).items) {
        for (const ref of dependent.metadata.ownerReferences ?? []) kindOf.set(ref.uid, ref.kind);
      }
    }
    collect(undefined, (uid) =>
      !live.has(uid) && ownerKinds.has(kindOf.get(uid) ?? '') ? 'Background' : undefined,
    );
  };

  const stops = [
    ...OWNERS.map((resource) =>
      store.watch(resource, (event) => {
        if (event.type !== 'DELETED') return;
        deleted.set(event.object.metadata.uid ?? '', {
          namespace: event.object.metadata.namespace,
          policy: event.propagationPolicy ?? 'Background',
        });
        queue.add('deleted');
      }),
    ),
    clock.every(ctx.delays.resyncMs, () => queue.add('sweep')),
  ];
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
