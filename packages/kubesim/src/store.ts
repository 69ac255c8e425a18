/**
 * The sim's generic object store, the etcd + registry of the embedded Kubernetes. It decides what a
 * write means for every kind alike: one global resourceVersion, uid/generation/timestamps, optimistic
 * concurrency and preconditions, graceful deletion and finalizers, label/field selection, paginated
 * lists, watch fan-out with a bounded history, dry-run and the audit log. Kind-specific rules come
 * from the registry (resources.ts). Everything is synchronous: a write and its watch deliveries
 * finish before the call returns, so controllers never see a half-applied state.
 */
import { randomUUID } from 'node:crypto';
import type {
  AuditEntry,
  DeleteOptions,
  KObject,
  ListOptions,
  ListPage,
  ResourceKey,
  Store,
  WatchEvent,
  WriteOptions,
} from './types.js';
import { attachCustomResources, restoreObjects } from './crd-controller.js';
import { createResourceRegistry, type ResourceRegistry } from './resource-registry.js';
import { apiVersionOf, fieldGetter, type ResourceDef } from './resources.js';
import { admitNamespace, prepareUpdate, validateObject } from './store-admission.js';
import { alreadyExists, invalid, preconditionFailed } from './status-errors.js';
import { notFound } from './status-errors.js';
import { fromSelectorObject, matchesLabels } from './selectors.js';
import { objectKey, SortedObjects } from './store-index.js';
import { EventHistory } from './store-history.js';
import { listObjects } from './store-list.js';
import { WatchHub } from './store-watch.js';
import { withViews } from './store-views.js';
import { clone, deepEqual, dropEmptyMaps, flat, formatTime, generateName } from './store-meta.js';

export { fromSelectorObject, matchesLabels };

export interface StoreOptions {
  /** The sim clock: every timestamp the store writes comes from here. */
  now: () => Date;
  /** Watch events kept for watch resumption and continue tokens. @default 10000 */
  historyLimit?: number;
  /** Where exceptions thrown by in-process watch handlers go. @default console.error */
  onHandlerError?: (error: unknown, event: WatchEvent) => void;
  /** The resources it serves (built-in kinds plus its CRDs'). @default a registry of its own */
  resources?: ResourceRegistry;
  /**
   * Objects saved by an earlier run (state/sim-state.ts), served as they were: uids and
   * resourceVersions kept, the next write numbered after `resourceVersion`, and a watch or continue
   * token from before it answered 410 Expired, as a restarted kube-apiserver's empty watch cache does.
   */
  restore?: RestoredObjects;
  /** Told of every committed write, in resourceVersion order (the saved state's journal). */
  onCommit?: (record: CommitRecord) => void;
}

export interface RestoredObjects {
  resourceVersion: number;
  objects: readonly { resource: ResourceKey; object: KObject }[];
}

export interface CommitRecord {
  rv: number;
  resource: ResourceKey;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The stored object: read it (serialize it) before returning, never change it. */
  object: KObject;
}

const NAMESPACES = 'namespaces';

/** `rest.BeforeDelete`: the delete's uid and resourceVersion preconditions must hold (409 otherwise). */
export function checkPreconditions(
  def: ResourceDef,
  current: KObject,
  pre: DeleteOptions['preconditions'],
): void {
  const name = current.metadata.name ?? '';
  if (pre?.uid && pre.uid !== current.metadata.uid) {
    throw preconditionFailed(
      def,
      name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${current.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
    throw preconditionFailed(
      def,
      name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${current.metadata.resourceVersion ?? ''}). The object might have been modified`,
    );
  }
}

export function createStore(options: StoreOptions): Store {
  const now = options.now;
  const buckets = new Map<ResourceKey, SortedObjects>();
  const history = new EventHistory(options.historyLimit ?? 10_000);
  const hub = new WatchHub(
    history,
    options.onHandlerError ??
      ((error: unknown) => console.error('sim store: watch handler failed:', error)),
  );
  const auditLog: AuditEntry[] = [];
  let rv = 0;

  const registry = options.resources ?? createResourceRegistry();
  const defOf = (key: ResourceKey) => registry.require(key);

  function bucket(def: ResourceDef): SortedObjects {
    let b = buckets.get(def.key);
    if (!b) {
      const indexes = Object.fromEntries(def.indexedFields.map((f) => [f, fieldGetter(def, f)!]));
      buckets.set(def.key, (b = new SortedObjects(indexes)));
    }
    return b;
  }

  function commit(
    def: ResourceDef,
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    object: KObject,
    verb: AuditEntry['verb'],
    opts: WriteOptions & { propagationPolicy?: DeleteOptions['propagationPolicy'] },
    previous?: KObject,
  ): KObject {
    rv++;
    object.metadata.resourceVersion = String(rv);
    const key = objectKey(object.metadata.namespace, object.metadata.name ?? '');
    if (type === 'DELETED') bucket(def).delete(key);
    else bucket(def).set(key, object);
    const policy =
      type === 'DELETED'
        ? { propagationPolicy: opts.propagationPolicy ?? def.defaultPropagation }
        : {};
    const event: WatchEvent = { type, object, ...policy, ...(previous ? { previous } : {}) };
    history.push({ rv, resource: def.key, event });
    options.onCommit?.({ rv, resource: def.key, type, object });
    auditLog.push({
      rv,
      at: now().toISOString(),
      verb: opts.verb ?? verb,
      resource: def.key,
      ...(opts.subresource === undefined ? {} : { subresource: opts.subresource }),
      ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
      name: object.metadata.name ?? '',
      actor: opts.actor ?? 'unknown',
      object,
      ...policy,
    });
    hub.publish(def.key, event, rv);
    return clone(object);
  }

  function create(resource: ResourceKey, input: KObject, opts: WriteOptions = {}): KObject {
    const def = defOf(resource);
    const object = clone(input);
    object.metadata ??= {};
    const meta = object.metadata;
    admitNamespace(def, object, (ns) => buckets.get(NAMESPACES)?.get(ns));
    const b = bucket(def);
    if (!meta.name && meta.generateName) {
      do meta.name = generateName(meta.generateName);
      while (b.get(objectKey(meta.namespace, meta.name)));
    }
    if (!meta.name) {
      throw invalid(def, '', [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    }
    if (b.get(objectKey(meta.namespace, meta.name))) throw alreadyExists(def, meta.name);
    object.apiVersion = apiVersionOf(def);
    object.kind = def.kind;
    meta.uid = flat(randomUUID());
    meta.creationTimestamp = formatTime(now());
    meta.generation = 1;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    def.defaults?.(object);
    def.admitCreate?.(object, store);
    dropEmptyMaps(meta);
    opts.track?.(object, undefined);
    validateObject(def, object);
    opts.admit?.(object, undefined);
    if (opts.dryRun) return clone(object);
    return commit(def, 'ADDED', object, 'create', opts);
  }

  function update(resource: ResourceKey, input: KObject, opts: WriteOptions = {}): KObject {
    const def = defOf(resource);
    const object = clone(input);
    object.metadata ??= {};
    const name = object.metadata.name ?? '';
    const namespace = def.namespaced ? object.metadata.namespace : undefined;
    const current = bucket(def).get(objectKey(namespace, name));
    if (!current) {
      if (def.createOnUpdate && opts.subresource === undefined) {
        delete object.metadata.resourceVersion;
        return create(resource, object, opts);
      }
      throw notFound(def, name);
    }
    const next = prepareUpdate(def, current, object, opts.subresource);
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    opts.track?.(next, current);
    validateObject(def, next, current, opts.subresource);
    opts.admit?.(next, current);
    if (deepEqual(current, next) || opts.dryRun) return clone(next);
    // The last finalizer gone from an object already marked for deletion: now it really goes.
    const meta = next.metadata;
    if (
      meta.deletionTimestamp &&
      (meta.finalizers ?? []).length === 0 &&
      !meta.deletionGracePeriodSeconds
    ) {
      return commit(def, 'DELETED', next, 'update', opts);
    }
    return commit(def, 'MODIFIED', next, 'update', opts, current);
  }

  function remove(
    resource: ResourceKey,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ): KObject | undefined {
    const def = defOf(resource);
    const current = bucket(def).get(objectKey(def.namespaced ? namespace : undefined, name));
    if (!current) throw notFound(def, name);
    checkPreconditions(def, current, opts.preconditions);
    opts.admit?.(undefined, current);
    const grace = def.gracePeriod?.(current, opts.gracePeriodSeconds) ?? 0;
    const finalizers = [...(current.metadata.finalizers ?? [])];
    // The CRD registry's delete adds the finalizer its cleanup controller removes (crd-controller.ts).
    if (def.deleteFinalizer && !finalizers.includes(def.deleteFinalizer))
      finalizers.push(def.deleteFinalizer);
    const deleteNow = (): KObject => {
      const last = clone(current);
      if (opts.dryRun) return last;
      if (def.key === NAMESPACES) deleteContents(name, opts);
      return commit(def, 'DELETED', last, 'delete', opts);
    };
    if (grace === 0 && finalizers.length === 0) return deleteNow();
    const at = formatTime(new Date(now().getTime() + grace * 1000));
    const already = current.metadata.deletionTimestamp;
    // A second delete may only shorten the grace period; otherwise it changes nothing.
    if (already && at >= already) return clone(current);
    const next = clone(current);
    next.metadata.deletionTimestamp = at;
    next.metadata.deletionGracePeriodSeconds = grace;
    if (finalizers.length > 0) next.metadata.finalizers = finalizers;
    if (!already) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    if (opts.dryRun) return next;
    return commit(def, 'MODIFIED', next, 'delete', opts, current);
  }

  /** A deleted namespace takes its contents with it (at once: the sim has no namespace controller). */
  function deleteContents(namespace: string, opts: DeleteOptions): void {
    for (const [key, b] of buckets) {
      // A bucket may outlive its CRD (emptied when the CRD went).
      const def = registry.get(key);
      if (!def?.namespaced) continue;
      for (const [, object] of [...b.scan({ prefix: `${namespace}/` })]) {
        commit(def, 'DELETED', clone(object), 'delete', {
          actor: opts.actor ?? 'controller/namespace',
        });
      }
    }
  }

  function listPage(
    resource: ResourceKey,
    o: ListOptions = {},
    view: { shared?: boolean } = {},
  ): ListPage {
    const def = defOf(resource);
    return listObjects(bucket(def), def, o, { rv, compactedRv: history.compactedRv, ...view });
  }

  function watchFrom(
    resource: ResourceKey,
    sinceRv: string | undefined,
    handler: (event: WatchEvent) => void,
    view: { shared?: boolean } = {},
  ): () => void {
    return hub.subscribe(defOf(resource).key, sinceRv, rv, handler, view.shared ?? false);
  }

  const raw: Store = {
    get(resource, namespace, name) {
      const def = defOf(resource);
      const object = bucket(def).get(objectKey(def.namespaced ? namespace : undefined, name));
      return object ? clone(object) : undefined;
    },
    list: (resource, o) => listPage(resource, { ...o, limit: 0, continue: '' }).items,
    create,
    update,
    mutate(resource, namespace, name, fn, opts = {}) {
      const def = defOf(resource);
      const ns = def.namespaced ? namespace : undefined;
      const current = bucket(def).get(objectKey(ns, name));
      if (!current) return undefined;
      const copy = clone(current);
      fn(copy);
      copy.metadata.name = name;
      if (ns !== undefined) copy.metadata.namespace = ns;
      copy.metadata.resourceVersion = current.metadata.resourceVersion;
      return update(resource, copy, opts);
    },
    delete: remove,
    watch: (resource, handler) => watchFrom(resource, undefined, handler),
    audit: () => auditLog,
    resourceVersion: () => String(rv),
    listPage,
    watchFrom,
    resources: registry,
  };
  if (options.restore) {
    rv = restoreObjects(options.restore, registry, (def, object) =>
      bucket(def).set(objectKey(object.metadata.namespace, object.metadata.name ?? ''), object),
    );
    history.startAfter(rv);
  }
  const store = withViews(raw, defOf);
  attachCustomResources(store, registry, now);
  return store;
}
