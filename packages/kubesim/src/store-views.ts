/**
 * Resources that are another resource's objects seen through a different version, as kube-apiserver
 * serves them: events.k8s.io/v1 Events are the core/v1 Events (one etcd key, one resourceVersion
 * sequence), converted field by field on the way in and out. Without the view a `kubectl get events`
 * (core/v1) would not see what a controller recorded through events.k8s.io/v1, and the other way round.
 */
import type { ResourceDef } from './resources.js';
import { validateObject } from './store-admission.js';
import type { KObject, ResourceKey, Store, WatchEvent } from './types.js';

interface View {
  /** The resource whose objects it shows. */
  base: ResourceKey;
  toBase: (object: KObject) => KObject;
  fromBase: (object: KObject) => KObject;
  /** Field selector names of the view → the base's. */
  fields: (selector: string) => string;
}

/** events.k8s.io/v1 name → core/v1 name (pkg/apis/events/v1/conversion.go). */
const EVENT_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function renamed(
  object: KObject,
  pairs: ReadonlyArray<readonly [string, string]>,
  apiVersion: string,
): KObject {
  const out: KObject = { ...object, apiVersion, kind: 'Event' };
  for (const [from, to] of pairs) {
    delete out[from];
    if (object[from] !== undefined) out[to] = object[from];
  }
  return out;
}

const swap = EVENT_FIELDS.map(([a, b]) => [b, a] as const);

const EVENTS_V1: View = {
  base: 'events',
  toBase: (o) => renamed(o, EVENT_FIELDS, 'v1'),
  fromBase: (o) => renamed(o, swap, 'events.k8s.io/v1'),
  fields: (selector) =>
    selector
      .replace(/(^|,)regarding\./g, '$1involvedObject.')
      .replace(/(^|,)reportingController(?=[=!])/g, '$1reportingComponent'),
};

export const VIEWS: ReadonlyMap<ResourceKey, View> = new Map([['events.events.k8s.io', EVENTS_V1]]);

/** The store with its views served from their base resources. */
export function withViews(store: Store, defOf: (key: ResourceKey) => ResourceDef): Store {
  const view = (key: ResourceKey) => VIEWS.get(key);
  const out = (v: View | undefined, o: KObject | undefined) => (v && o ? v.fromBase(o) : o);
  const outEvent = (v: View, e: WatchEvent): WatchEvent => ({
    ...e,
    object: v.fromBase(e.object),
    ...(e.previous ? { previous: v.fromBase(e.previous) } : {}),
  });
  const options = <T extends { fieldSelector?: string }>(
    v: View,
    o: T | undefined,
  ): T | undefined => (o?.fieldSelector ? { ...o, fieldSelector: v.fields(o.fieldSelector) } : o);
  // The view's own rules (events.k8s.io/v1 requires eventTime, action, …) hold for writes through it.
  const admitted = (v: View, key: ResourceKey, o: KObject, old?: KObject): KObject => {
    validateObject(defOf(key), o, old);
    return v.toBase(o);
  };
  return {
    ...store,
    get(resource, namespace, name) {
      const v = view(resource);
      return out(v, store.get(v?.base ?? resource, namespace, name));
    },
    list(resource, o) {
      const v = view(resource);
      if (!v) return store.list(resource, o);
      return store.list(v.base, options(v, o)).map(v.fromBase);
    },
    listPage(resource, o, shared) {
      const v = view(resource);
      if (!v) return store.listPage(resource, o, shared);
      const page = store.listPage(v.base, options(v, o), shared);
      return { ...page, items: page.items.map(v.fromBase) };
    },
    create(resource, object, o) {
      const v = view(resource);
      if (!v) return store.create(resource, object, o);
      return v.fromBase(store.create(v.base, admitted(v, resource, object), o));
    },
    update(resource, object, o) {
      const v = view(resource);
      if (!v) return store.update(resource, object, o);
      return v.fromBase(store.update(v.base, admitted(v, resource, object), o));
    },
    mutate(resource, namespace, name, fn, o) {
      const v = view(resource);
      if (!v) return store.mutate(resource, namespace, name, fn, o);
      const result = store.mutate(
        v.base,
        namespace,
        name,
        (base) => {
          const seen = v.fromBase(base);
          fn(seen);
          for (const k of Object.keys(base)) delete base[k];
          Object.assign(base, admitted(v, resource, seen));
        },
        o,
      );
      return out(v, result);
    },
    delete(resource, namespace, name, o) {
      const v = view(resource);
      return out(v, store.delete(v?.base ?? resource, namespace, name, o));
    },
    watch(resource, handler) {
      const v = view(resource);
      if (!v) return store.watch(resource, handler);
      return store.watch(v.base, (e) => handler(outEvent(v, e)));
    },
    watchFrom(resource, sinceRv, handler, shared) {
      const v = view(resource);
      if (!v) return store.watchFrom(resource, sinceRv, handler, shared);
      return store.watchFrom(v.base, sinceRv, (e) => handler(outEvent(v, e)), shared);
    },
  };
}
