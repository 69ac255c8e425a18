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
import { StatusError } from './types.js';
import { apiVersionOf, fieldGetter, resourceDef, type ResourceDef } from './resources.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  forbidden,
  invalid,
} from './status-errors.js';
import { notFound } from './status-errors.js';
import { fromSelectorObject, matchesFields, matchesLabels } from './selectors.js';
import { parseFieldSelector, parseLabelSelector, type FieldRequirement } from './selectors.js';
import { objectKey, SortedObjects } from './store-index.js';
import { EventHistory } from './store-history.js';
import { clone, deepEqual, formatTime, generateName, specChanged } from './store-meta.js';
import { validateLabels, validateName } from './store-meta.js';

export { fromSelectorObject, matchesLabels };

export interface StoreOptions {
  /** The sim clock: every timestamp the store writes comes from here. */
  now: () => Date;
  /** Watch events kept for watch resumption and continue tokens. @default 10000 */
  historyLimit?: number;
  /** Where exceptions thrown by in-process watch handlers go. @default console.error */
  onHandlerError?: (error: unknown, event: WatchEvent) => void;
}

type Handler = (event: WatchEvent, rv: number) => void;

const NAMESPACES = 'namespaces';

export function createStore(options: StoreOptions): Store {
  const now = options.now;
  const buckets = new Map<ResourceKey, SortedObjects>();
  const handlers = new Map<ResourceKey, Set<Handler>>();
  const history = new EventHistory(options.historyLimit ?? 10_000);
  const auditLog: AuditEntry[] = [];
  const queue: { resource: ResourceKey; event: WatchEvent; rv: number }[] = [];
  const reportError =
    options.onHandlerError ??
    ((error: unknown) => console.error('sim store: watch handler failed:', error));
  let rv = 0;
  let delivering = false;

  function defOf(resource: ResourceKey): ResourceDef {
    const def = resourceDef(resource);
    if (!def) {
      throw new StatusError(
        404,
        'NotFound',
        `the server could not find the requested resource (${resource})`,
      );
    }
    return def;
  }

  function bucket(def: ResourceDef): SortedObjects {
    let b = buckets.get(def.key);
    if (!b) {
      const indexes = Object.fromEntries(def.indexedFields.map((f) => [f, fieldGetter(def, f)!]));
      buckets.set(def.key, (b = new SortedObjects(indexes)));
    }
    return b;
  }

  /** Nested writes from inside a handler queue up, so every handler sees events in rv order. */
  function deliver(): void {
    if (delivering) return;
    delivering = true;
    try {
      for (let next = queue.shift(); next; next = queue.shift()) {
        for (const handler of handlers.get(next.resource) ?? []) {
          try {
            handler(next.event, next.rv);
          } catch (error) {
            reportError(error, next.event);
          }
        }
      }
    } finally {
      delivering = false;
    }
  }

  function commit(
    def: ResourceDef,
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    object: KObject,
    verb: AuditEntry['verb'],
    opts: WriteOptions & { propagationPolicy?: DeleteOptions['propagationPolicy'] },
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
    const event: WatchEvent = { type, object, ...policy };
    history.push({ rv, resource: def.key, event });
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
    queue.push({ resource: def.key, event, rv });
    deliver();
    return clone(object);
  }

  function checkNamespace(def: ResourceDef, object: KObject): void {
    const ns = object.metadata.namespace;
    if (!def.namespaced) {
      delete object.metadata.namespace;
      return;
    }
    if (!ns) {
      throw invalid(def, object.metadata.name ?? '', [
        { reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' },
      ]);
    }
    const namespace = buckets.get(NAMESPACES)?.get(ns);
    const nsDef = defOf(NAMESPACES);
    if (!namespace) throw notFound(nsDef, ns);
    if (namespace.metadata.deletionTimestamp) {
      const message = `namespace ${ns} is being terminated`;
      throw forbidden(
        def,
        object.metadata.name ?? '',
        `unable to create new content in namespace ${ns} because it is being terminated`,
        [{ reason: 'NamespaceTerminating', message, field: 'metadata.namespace' }],
      );
    }
  }

  function validate(def: ResourceDef, object: KObject): void {
    const causes = [
      ...validateName(object.metadata.name ?? '', def.key === NAMESPACES),
      ...validateLabels(object.metadata.labels),
      ...(def.validate?.(object) ?? []),
    ];
    if (causes.length > 0) throw invalid(def, object.metadata.name ?? '', causes);
  }

  function create(resource: ResourceKey, input: KObject, opts: WriteOptions = {}): KObject {
    const def = defOf(resource);
    const object = clone(input);
    object.metadata ??= {};
    const meta = object.metadata;
    checkNamespace(def, object);
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
    meta.uid = randomUUID();
    meta.creationTimestamp = formatTime(now());
    meta.generation = 1;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    def.defaults?.(object);
    validate(def, object);
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
    const wanted = object.metadata.resourceVersion;
    if (wanted !== undefined && wanted !== '') {
      if (wanted !== current.metadata.resourceVersion) throw conflict(def, name);
    } else if (!def.unconditionalUpdate) {
      throw invalid(def, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.resourceVersion',
          message: 'Invalid value: 0x0: must be specified for an update',
        },
      ]);
    }
    let next: KObject;
    if (opts.subresource === 'status') {
      next = clone(current);
      if (object.status === undefined) delete next.status;
      else next.status = object.status;
    } else {
      next = object;
      const keep = [
        'uid',
        'creationTimestamp',
        'deletionTimestamp',
        'deletionGracePeriodSeconds',
        'generation',
      ];
      for (const field of keep) {
        if (current.metadata[field] === undefined) delete next.metadata[field];
        else next.metadata[field] = current.metadata[field];
      }
      next.metadata.name = name;
      if (namespace === undefined) delete next.metadata.namespace;
      else next.metadata.namespace = namespace;
      next.apiVersion = apiVersionOf(def);
      next.kind = def.kind;
      if (specChanged(current, next))
        next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    }
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    validate(def, next);
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
    return commit(def, 'MODIFIED', next, 'update', opts);
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
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw conflict(
        def,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(
        def,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    const grace = def.gracePeriod?.(current, opts.gracePeriodSeconds) ?? 0;
    const finalizers = current.metadata.finalizers ?? [];
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
    if (!already) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    if (opts.dryRun) return next;
    return commit(def, 'MODIFIED', next, 'delete', opts);
  }

  /** A deleted namespace takes its contents with it (at once: the sim has no namespace controller). */
  function deleteContents(namespace: string, opts: DeleteOptions): void {
    for (const [key, b] of buckets) {
      const def = defOf(key);
      if (!def.namespaced) continue;
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
    const labels = parseLabelSelector(o.labelSelector);
    const fields = parseFieldSelector(o.fieldSelector, (f) => fieldGetter(def, f) !== undefined);
    const getters = new Map(fields.map((f) => [f.field, fieldGetter(def, f.field)!]));
    let afterKey: string | undefined;
    let snapshot = rv;
    if (o.continue) ({ afterKey, snapshot } = decodeContinue(o.continue, history.compactedRv));
    const prefix = def.namespaced && o.namespace ? `${o.namespace}/` : '';
    const limit = o.limit && o.limit > 0 ? o.limit : Infinity;
    const items: KObject[] = [];
    let lastKey = '';
    let more = false;
    for (const [key, object] of candidates(bucket(def), fields, prefix, afterKey)) {
      if (!matchesLabels(labels, object.metadata.labels)) continue;
      if (!matchesFields(fields, (f) => getters.get(f)?.(object))) continue;
      if (items.length >= limit) {
        more = true;
        break;
      }
      items.push(view.shared ? object : clone(object));
      lastKey = key;
    }
    const page: ListPage = { items, resourceVersion: String(rv) };
    if (more) page.continue = encodeContinue(snapshot, lastKey);
    return page;
  }

  function watchFrom(
    resource: ResourceKey,
    sinceRv: string | undefined,
    handler: (event: WatchEvent) => void,
    view: { shared?: boolean } = {},
  ): () => void {
    const def = defOf(resource);
    let last = rv;
    if (sinceRv !== undefined && sinceRv !== '') {
      const since = Number(sinceRv);
      if (!Number.isInteger(since) || since < 0)
        throw badRequest(`invalid resource version: ${JSON.stringify(sinceRv)}`);
      if (since < history.compactedRv) {
        throw expired(`too old resource version: ${since} (${history.compactedRv + 1})`);
      }
      last = since;
    }
    const emit = (event: WatchEvent) => handler(view.shared ? event : clone(event));
    // Deliveries still queued when we subscribe would repeat the replay: skip what was already sent.
    const wrapped: Handler = (event, eventRv) => {
      if (eventRv <= last) return;
      last = eventRv;
      emit(event);
    };
    for (const entry of history.since(def.key, last)) wrapped(entry.event, entry.rv);
    let set = handlers.get(def.key);
    if (!set) handlers.set(def.key, (set = new Set()));
    set.add(wrapped);
    return () => void handlers.get(def.key)?.delete(wrapped);
  }

  const store: Store = {
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
  };
  return store;
}

/** An indexed `field=value` requirement narrows the scan to that index's keys (in key order). */
function* candidates(
  b: SortedObjects,
  fields: readonly FieldRequirement[],
  prefix: string,
  afterKey: string | undefined,
): Generator<[string, KObject]> {
  const indexed = fields.find((f) => !f.negate && b.hasIndex(f.field));
  if (!indexed) {
    yield* b.scan({ prefix, ...(afterKey === undefined ? {} : { afterKey }) });
    return;
  }
  for (const key of b.indexed(indexed.field, indexed.value)) {
    if (!key.startsWith(prefix) || (afterKey !== undefined && key <= afterKey)) continue;
    const object = b.get(key);
    if (object) yield [key, object];
  }
}

/** The token is opaque to clients: the RV the list started at and the last key served. */
function encodeContinue(rv: number, key: string): string {
  return Buffer.from(JSON.stringify({ v: 1, rv, key })).toString('base64url');
}

function decodeContinue(
  token: string,
  compactedRv: number,
): { afterKey: string; snapshot: number } {
  let parsed: { rv?: unknown; key?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw badRequest(
      `continue key is not valid: ${JSON.stringify(token)} is not a token from a previous list`,
    );
  }
  if (typeof parsed.rv !== 'number' || typeof parsed.key !== 'string') {
    throw badRequest(
      `continue key is not valid: ${JSON.stringify(token)} is not a token from a previous list`,
    );
  }
  if (parsed.rv < compactedRv) {
    throw expired(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
  }
  return { afterKey: parsed.key, snapshot: parsed.rv };
}
