/**
 * The disruption controller: keeps every PodDisruptionBudget's status current (healthy counts,
 * `disruptionsAllowed`, `observedGeneration`, the `DisruptionAllowed` condition, stale `disruptedPods`
 * dropped) as pods come and go, so evictions see the budget a real cluster would show. Driven by
 * events only: in-process watches miss nothing, and the one timed thing (a `disruptedPods` entry
 * expiring) is queued for its time.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { computePdbStatus, DELETION_TIMEOUT_MS } from './pdb-status.js';
import { matchesSelectorObject, selectorToString } from './selectors.js';
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
    const pods = ctx.pods
      ? ctx.pods.bySelector(namespace, selector)
      : store
          .list(R.pods, {
            namespace,
            ...(selector ? { labelSelector: selectorToString(selector) } : {}),
          })
          .filter((pod) => matchesSelectorObject(selector, pod.metadata.labels));
    // Remember who matched, so a pod relabelled out of this budget re-queues it.
    for (const pod of pods) {
      const podKey = keyOf(pod);
      const set = matched.get(podKey);
      if (set) set.add(key);
      else matched.set(podKey, new Set([key]));
    }
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
  /** namespace → PDB key → selector, so a pod event finds its budgets without listing them. */
  const budgets = new Map<string, Map<string, LabelSelector | undefined>>();
  /** pod key → the budgets it matched last time, so a relabelled pod updates the one it left. */
  const matched = new Map<string, Set<string>>();
  const matching = (namespace: string, labels: Record<string, string>): string[] =>
    [...(budgets.get(namespace) ?? [])]
      .filter(([, selector]) => matchesSelectorObject(selector, labels))
      .map(([key]) => key);
  const trackBudget = (pdb: KObject, deleted: boolean): void => {
    const namespace = pdb.metadata.namespace ?? '';
    let inNamespace = budgets.get(namespace);
    if (!inNamespace) {
      inNamespace = new Map<string, LabelSelector | undefined>();
      budgets.set(namespace, inNamespace);
    }
    if (deleted) inNamespace.delete(keyOf(pdb));
    else inNamespace.set(keyOf(pdb), pdb.spec?.['selector'] as LabelSelector | undefined);
  };
  const onPod = (pod: KObject, deleted: boolean): void => {
    const key = keyOf(pod);
    const now = deleted ? [] : matching(pod.metadata.namespace ?? '', pod.metadata.labels ?? {});
    for (const pdb of new Set([...(matched.get(key) ?? []), ...now])) queue.add(pdb);
    if (now.length > 0) matched.set(key, new Set(now));
    else matched.delete(key);
  };
  // A workload's replicas are a budget's expected count: recompute the budgets its pods fall under.
  const onWorkload = (workload: KObject): void => {
    const template = (workload.spec?.['template'] ?? {}) as {
      metadata?: { labels?: Record<string, string> };
    };
    const labels = template.metadata?.labels ?? {};
    for (const pdb of matching(workload.metadata.namespace ?? '', labels)) queue.add(pdb);
  };
  for (const pdb of store.list(R.pdbs)) trackBudget(pdb, false);
  const shared = { shared: true };
  const stops = [
    store.watchFrom(
      R.pdbs,
      undefined,
      (e) => {
        trackBudget(e.object, e.type === 'DELETED');
        if (e.type !== 'DELETED') queue.add(keyOf(e.object));
      },
      shared,
    ),
    store.watchFrom(R.pods, undefined, (e) => onPod(e.object, e.type === 'DELETED'), shared),
    ...[R.replicasets, R.deployments, R.statefulsets].map((resource) =>
      store.watchFrom(resource, undefined, (e) => onWorkload(e.object), shared),
    ),
  ];
  return () => {
    for (const stop of stops) stop();
    queue.stop();
  };
}
