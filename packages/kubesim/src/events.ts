/**
 * Events as Kubernetes' components record them. Controllers and kubelets use client-go's legacy
 * recorder (core/v1: `source`, `count`, first/last timestamps, named `<object>.<nanoseconds in hex>`),
 * and an identical event (same object, reason, message, source) within the aggregation window bumps
 * `count` and `lastTimestamp` of the first instead of writing another. The scheduler uses the
 * events.k8s.io/v1 recorder (`eventTime`, `action`, `reportingController`, no source).
 *
 * The store keeps Events for `EVENT_TTL_MS` (kube-apiserver's `--event-ttl`, one hour): `sweepEvents`
 * removes older ones, so a long scaled run does not grow without bound.
 */
import { formatTime } from './store-meta.js';
import { R, type KObject, type Store } from './types.js';

/** kube-apiserver's default `--event-ttl`. */
export const EVENT_TTL_MS = 60 * 60 * 1000;

export interface EventInput {
  regarding: KObject;
  reason: string;
  message: string;
  type?: 'Normal' | 'Warning';
  /** `source.component`: `kubelet`, `replicaset-controller`, `node-controller`, … */
  component: string;
  /** `source.host`: the node, for kubelets. */
  host?: string;
  /** `involvedObject.fieldPath`: `spec.containers{name}` for a container's events. */
  fieldPath?: string;
}

export function objectReference(o: KObject, fieldPath?: string): Record<string, unknown> {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    name: o.metadata.name,
    uid: o.metadata.uid,
    resourceVersion: o.metadata.resourceVersion,
    ...(fieldPath ? { fieldPath } : {}),
  };
}

/** `<object>.<unix nanoseconds in hex>`, as both recorders name Events (sub-ms digits random). */
const eventName = (o: KObject, now: Date): string => {
  const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6));
  return `${o.metadata.name ?? 'unknown'}.${nanos.toString(16)}`;
};

/** A core/v1 Event as client-go's legacy recorder makes it (record/event.go `makeEvent`). */
export function legacyEvent(input: EventInput, now: Date): KObject {
  const at = formatTime(now);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: eventName(input.regarding, now),
      // Cluster-scoped objects' events go to `default`, as the recorder puts them.
      namespace: input.regarding.metadata.namespace ?? 'default',
    },
    involvedObject: objectReference(input.regarding, input.fieldPath),
    reason: input.reason,
    message: input.message,
    source: { component: input.component, ...(input.host ? { host: input.host } : {}) },
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
    type: input.type ?? 'Normal',
    eventTime: null,
    reportingComponent: input.component,
    reportingInstance: input.host ?? '',
  };
}

const microTime = (now: Date): string => now.toISOString().replace(/Z$/, '000Z');

/** An events.k8s.io/v1 Event as the scheduler's recorder writes it, in its core/v1 form. */
export function schedulerEvent(
  pod: KObject,
  input: { reason: string; action: string; note: string; type?: 'Normal' | 'Warning' },
  now: Date,
): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: eventName(pod, now),
      namespace: pod.metadata.namespace ?? 'default',
    },
    involvedObject: objectReference(pod),
    reason: input.reason,
    message: input.note,
    source: {},
    type: input.type ?? 'Normal',
    eventTime: microTime(now),
    action: input.action,
    reportingComponent: 'default-scheduler',
    reportingInstance: 'default-scheduler-kubesim',
  };
}

/** Same object, reason, message and source: the recorder's aggregation key. */
const aggregationKey = (e: KObject): string => {
  const ref = e['involvedObject'] as Record<string, unknown>;
  const source = e['source'] as Record<string, unknown>;
  return [
    ref['uid'],
    ref['fieldPath'],
    e['reason'],
    e['message'],
    source['component'],
    source['host'],
  ]
    .map(String)
    .join('\u0000');
};

/**
 * Writes Events into a store as a recorder would: a repeat of a recent event bumps its count. Never
 * throws: an event that cannot be written (its namespace is gone) is dropped, as the recorder drops it.
 */
export function createEventSink(store: Store, actor: string) {
  /** aggregation key → event name; bounded like client-go's LRU cache. */
  const seen = new Map<string, { namespace: string; name: string }>();
  return (event: KObject): void => {
    try {
      if (event['eventTime'] === null && event['count'] !== undefined) {
        const key = aggregationKey(event);
        const prior = seen.get(key);
        if (prior) {
          const bumped = store.mutate(
            R.events,
            prior.namespace,
            prior.name,
            (e) => {
              e['count'] = Number(e['count'] ?? 1) + 1;
              e['lastTimestamp'] = event['lastTimestamp'];
            },
            { actor },
          );
          if (bumped) return;
        }
        const created = store.create(R.events, event, { actor });
        if (seen.size >= 4096) seen.delete(seen.keys().next().value as string);
        seen.set(key, {
          namespace: created.metadata.namespace ?? 'default',
          name: created.metadata.name ?? '',
        });
        return;
      }
      store.create(R.events, event, { actor });
    } catch {
      // The namespace went away: what happened still happened, only unrecorded.
    }
  };
}

/** When an Event was last seen, as `kubectl get events` sorts and ages them. */
export function lastSeen(e: KObject): string | undefined {
  const series = e['series'] as Record<string, unknown> | undefined;
  const candidates = [series?.['lastObservedTime'], e['lastTimestamp'], e['eventTime']];
  const found = candidates.find((c) => typeof c === 'string' && c !== '');
  return (found as string | undefined) ?? e.metadata.creationTimestamp;
}

/** Removes Events last seen longer than `ttlMs` ago (what etcd's lease on each Event does). */
export function sweepEvents(store: Store, now: Date, ttlMs = EVENT_TTL_MS): number {
  let removed = 0;
  for (const e of store.list(R.events)) {
    const at = Date.parse(lastSeen(e) ?? '');
    if (!Number.isFinite(at) || now.getTime() - at <= ttlMs) continue;
    try {
      store.delete(R.events, e.metadata.namespace, e.metadata.name ?? '', {
        actor: 'apiserver/event-ttl',
      });
      removed++;
    } catch {
      // Already gone.
    }
  }
  return removed;
}

const sinks = new WeakMap<Store, Map<string, (event: KObject) => void>>();

/** A component's recorder on the store: `record({ regarding, reason, message })`. */
export function recorderFor(
  store: Store,
  now: () => Date,
  component: string,
  actor = `controller/${component}`,
): (input: Omit<EventInput, 'component'>) => void {
  let byActor = sinks.get(store);
  if (!byActor) sinks.set(store, (byActor = new Map<string, (event: KObject) => void>()));
  let sink = byActor.get(actor);
  if (!sink) byActor.set(actor, (sink = createEventSink(store, actor)));
  const write = sink;
  return (input) => write(legacyEvent({ ...input, component }, now()));
}

/**
 * kube-apiserver's namespace rule for Events (core/validation `ValidateEventCreate`): an Event lives in
 * its object's namespace, and an Event about a cluster-scoped object in `default`.
 */
export function eventNamespaceCauses(e: KObject, refField = 'involvedObject') {
  const ref = (e[refField] ?? {}) as Record<string, unknown>;
  const refNs = typeof ref['namespace'] === 'string' ? ref['namespace'] : '';
  const ns = e.metadata.namespace ?? '';
  if (refNs === ns || (refNs === '' && ns === 'default')) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      field: `${refField}.namespace`,
      message: `Invalid value: ${JSON.stringify(refNs)}: does not match event.namespace`,
    },
  ];
}
