/**
 * An in-memory index of pods by owner uid and by label, fed by the store's watch, so controllers find
 * "the pods of this ReplicaSet" or "the pods this PDB selects" without scanning a namespace: with
 * 100,000 pods, 10,000 ReplicaSets and 10,000 PDBs a scan per reconcile would stall the sim. Items are
 * the store's own objects (read-only): write through the store, never into them.
 */
import { R, type KObject, type Store } from '../types.js';
import { matchesSelectorObject } from './selectors.js';
import { keyOf, type LabelSelector } from './shapes.js';

export interface PodIndex {
  /** Pods whose ownerReferences name `uid`. */
  byOwner(uid: string): KObject[];
  /** Pods of `namespace` that `selector` matches (policy/v1 semantics: undefined matches none). */
  bySelector(namespace: string, selector: LabelSelector | undefined): KObject[];
  stop(): void;
}

export function createPodIndex(store: Store): PodIndex {
  const pods = new Map<string, KObject>();
  const owners = new Map<string, Set<string>>();
  /** `namespace\0key=value` → pod keys; `namespace\0` → every pod key of the namespace. */
  const labels = new Map<string, Set<string>>();

  const add = (map: Map<string, Set<string>>, key: string, podKey: string): void => {
    const set = map.get(key);
    if (set) set.add(podKey);
    else map.set(key, new Set([podKey]));
  };
  const drop = (map: Map<string, Set<string>>, key: string, podKey: string): void => {
    const set = map.get(key);
    set?.delete(podKey);
    if (set?.size === 0) map.delete(key);
  };
  const entries = (pod: KObject): string[] => {
    const ns = pod.metadata.namespace ?? '';
    return [
      `${ns}\0`,
      ...Object.entries(pod.metadata.labels ?? {}).map(([k, v]) => `${ns}\0${k}=${v}`),
    ];
  };
  const remove = (podKey: string): void => {
    const old = pods.get(podKey);
    if (!old) return;
    pods.delete(podKey);
    for (const ref of old.metadata.ownerReferences ?? []) drop(owners, ref.uid, podKey);
    for (const entry of entries(old)) drop(labels, entry, podKey);
  };
  const put = (pod: KObject): void => {
    const podKey = keyOf(pod);
    remove(podKey);
    pods.set(podKey, pod);
    for (const ref of pod.metadata.ownerReferences ?? []) add(owners, ref.uid, podKey);
    for (const entry of entries(pod)) add(labels, entry, podKey);
  };
  const resolve = (keys: Iterable<string> | undefined): KObject[] =>
    [...(keys ?? [])].flatMap((key) => pods.get(key) ?? []);

  const stop = store.watchFrom(
    R.pods,
    undefined,
    (event) => (event.type === 'DELETED' ? remove(keyOf(event.object)) : put(event.object)),
    { shared: true },
  );
  for (const pod of store.listPage(R.pods, {}, { shared: true }).items) put(pod);

  return {
    byOwner: (uid) => resolve(owners.get(uid)),
    bySelector(namespace, selector) {
      if (!selector) return [];
      // Start from the smallest matchLabels bucket (or the namespace), then check the whole selector.
      let smallest = labels.get(`${namespace}\0`);
      for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
        const bucket = labels.get(`${namespace}\0${k}=${v}`);
        if (!bucket) return [];
        if (!smallest || bucket.size < smallest.size) smallest = bucket;
      }
      return resolve(smallest).filter((pod) =>
        matchesSelectorObject(selector, pod.metadata.labels),
      );
    },
    stop,
  };
}
