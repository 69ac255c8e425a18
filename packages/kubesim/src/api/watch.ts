/**
 * Watch streams as kube-apiserver serves them: HTTP 200, chunked, one JSON event per line. Without
 * a resourceVersion (or "0") the stream starts with a synthetic ADDED per existing object; with one,
 * it resumes from the store's history, or answers a single in-stream ERROR 410 event when that
 * version has been compacted away. Objects entering or leaving a selector show up as ADDED/DELETED,
 * bookmarks carry the current resourceVersion, and `timeoutSeconds` ends the stream. A client that
 * prefers protobuf gets length-prefixed protobuf WatchEvents instead (built-in kinds only).
 */
import type { ResourceDef } from '../resources.js';
import { apiVersionOf, fieldGetter } from '../resources.js';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from '../selectors.js';
import { StatusError, type KObject, type Store, type WatchEvent } from '../types.js';
import { invalidOptions, toStatus } from '../status-errors.js';
import { queryFlag, type RequestContext } from './http.js';
import { encodeWatchEvent, hasMessage, prefersProtobuf, PROTOBUF } from './protobuf/index.js';
import { toTable, wantsTable } from './table.js';
import { asServed } from './served-version.js';

export interface WatchRequest {
  def: ResourceDef;
  namespace: string | undefined;
  /** Set when the watch targets one object (`…/pods/<name>?watch=1`). */
  name: string | undefined;
}

export interface WatchSettings {
  store: Store;
  /** @default 1000 */
  bookmarkIntervalMs: number;
  /** Added by fault injection: cut the stream after this long. */
  dropAfterMs?: number;
  /** Streams currently open, so close() can end them. */
  open: Set<() => void>;
}

const atVersionOf = (previous: KObject, object: KObject): KObject => ({
  ...previous,
  metadata: { ...previous.metadata, resourceVersion: object.metadata.resourceVersion },
});

export function serveWatch(ctx: RequestContext, w: WatchRequest, settings: WatchSettings): void {
  const { store } = settings;
  const { def } = w;
  const q = ctx.query;
  const labels = parseLabelSelector(q.get('labelSelector') ?? undefined);
  const fieldText = [q.get('fieldSelector') ?? '', w.name ? `metadata.name=${w.name}` : '']
    .filter((s) => s !== '')
    .join(',');
  const fields = parseFieldSelector(fieldText, (f) => fieldGetter(def, f) !== undefined);
  const matches = (o: KObject) =>
    (w.namespace === undefined || o.metadata.namespace === w.namespace) &&
    matchesLabels(labels, o.metadata.labels) &&
    matchesFields(fields, (f) => fieldGetter(def, f)?.(o));
  const table = wantsTable(ctx.req);
  const rv = q.get('resourceVersion') ?? '';
  const initialEvents = queryFlag(q, 'sendInitialEvents');
  if (initialEvents && q.get('resourceVersionMatch') !== 'NotOlderThan') {
    throw invalidOptions('ListOptions', {
      reason: 'FieldValueForbidden',
      message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      field: 'resourceVersionMatch',
    });
  }
  // The sim always serves its latest state, which is never older than a NotOlderThan version.
  const fromNow = rv === '' || rv === '0' || initialEvents;
  const bookmarks = queryFlag(q, 'allowWatchBookmarks');

  const res = ctx.res;
  const protobuf =
    !table &&
    prefersProtobuf(ctx.req.headers.accept) &&
    hasMessage({ apiVersion: apiVersionOf(def), kind: def.kind });
  res.writeHead(200, {
    'Content-Type': protobuf ? `${PROTOBUF};stream=watch` : 'application/json',
    'Transfer-Encoding': 'chunked',
    'Cache-Control': 'no-cache',
  });
  res.flushHeaders();
  const write = (type: string, object: unknown) => {
    if (res.writableEnded) return;
    if (!protobuf) return void res.write(`${JSON.stringify({ type, object })}\n`);
    try {
      res.write(encodeWatchEvent(type, object as Record<string, unknown>));
    } catch {
      // An object its message cannot carry: end the stream (the client watches again) rather
      // than throw into the store's event delivery.
      res.destroy();
    }
  };
  const render = (o: KObject) =>
    table
      ? toTable(def, [o], ctx.now(), { resourceVersion: o.metadata.resourceVersion })
      : asServed(def, o);

  const inView = new Set<string>();
  const keyOf = (o: KObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  const onEvent = (event: WatchEvent) => {
    const object = event.object;
    const key = keyOf(object);
    if (event.type === 'DELETED') {
      if (matches(object) || inView.has(key)) write('DELETED', render(object));
      inView.delete(key);
      return;
    }
    const now = matches(object);
    const previous = event.previous;
    const before = previous ? matches(previous) : inView.has(key);
    if (now) inView.add(key);
    else inView.delete(key);
    if (now) write(before ? 'MODIFIED' : 'ADDED', render(object));
    // Leaving the selection: the cacher sends the last state that matched, at the change's version.
    else if (before && previous) write('DELETED', render(atVersionOf(previous, object)));
    else if (before) write('DELETED', render(object));
  };

  let unsubscribe: () => void = () => {};
  const timers: NodeJS.Timeout[] = [];
  const finish = () => {
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    settings.open.delete(finish);
    if (!res.writableEnded) res.end();
  };
  settings.open.add(finish);
  ctx.req.on('close', finish);
  res.on('close', finish);

  try {
    if (fromNow) {
      // Synchronous: nothing can be written between the initial list and the subscription.
      const page = store.listPage(def.key, w.namespace ? { namespace: w.namespace } : {}, {
        shared: true,
      });
      for (const object of page.items) onEvent({ type: 'ADDED', object });
      if (initialEvents && bookmarks) {
        write('BOOKMARK', {
          kind: def.kind,
          apiVersion: apiVersionOf(def),
          metadata: {
            resourceVersion: page.resourceVersion,
            annotations: { 'k8s.io/initial-events-end': 'true' },
          },
        });
      }
      unsubscribe = store.watchFrom(def.key, page.resourceVersion, onEvent, { shared: true });
    } else {
      unsubscribe = store.watchFrom(def.key, rv, onEvent, { shared: true });
    }
  } catch (error) {
    if (error instanceof StatusError && error.code === 410) {
      write('ERROR', toStatus(error).body);
      finish();
      return;
    }
    throw error;
  }

  if (bookmarks) {
    const interval = setInterval(() => {
      write('BOOKMARK', {
        kind: def.kind,
        apiVersion: apiVersionOf(def),
        metadata: { resourceVersion: store.resourceVersion() },
      });
    }, settings.bookmarkIntervalMs);
    timers.push(interval);
  }
  const timeout = Number(q.get('timeoutSeconds') ?? '');
  const limitMs = Number.isFinite(timeout) && timeout > 0 ? timeout * 1000 : 1800_000;
  timers.push(setTimeout(finish, limitMs));
  if (settings.dropAfterMs !== undefined) {
    // A dropped watch is a connection reset, not a clean end: clients must notice and re-watch.
    timers.push(setTimeout(() => (unsubscribe(), res.destroy()), settings.dropAfterMs));
  }
}
