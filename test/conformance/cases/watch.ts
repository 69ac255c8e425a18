/**
 * Watches as kubemaint's watch streams use them: resuming from a list's resourceVersion (exactly the
 * later changes, in order; DELETED carries the deletion's resourceVersion), objects leaving a selector,
 * bookmarks (periodic and the initial-events-end one), the end of the stream at `timeoutSeconds`, and
 * the in-stream 410 Expired for a resourceVersion the server no longer keeps.
 */
import assert from 'node:assert/strict';
import type { Backend, WatchEvent } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { field, meta, MERGE } from '../fixtures.js';

type Obj = Record<string, unknown>;
const cmPath = (ns: string, name = '') =>
  `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const nameOf = (e: WatchEvent) => String(e.object.metadata?.name);
const rvOf = (e: WatchEvent) => Number(e.object.metadata?.resourceVersion);

async function write(b: Backend, method: string, path: string, body?: unknown) {
  const reply = await b.request(method, path, {
    ...(body === undefined ? {} : { body }),
    ...(method === 'PATCH' ? { contentType: MERGE } : {}),
  });
  assert.ok(reply.code < 300, reply.text);
  return reply.json;
}

const configMap = (name: string, labels: Obj = { conf: 'watch' }) => ({
  metadata: { name, labels },
  data: { k: 'v' },
});

/**
 * How long an event must stay in the real apiserver's watch cache before newer events may push it
 * out (the cacher's eventFreshDuration, 75 s): a case that needs a too-old resourceVersion waits this
 * long there. The sim's window is a count of events, so it needs no wait.
 */
const WATCH_CACHE_FRESH_MS = 77_000;

export const watchCases: CaseGroup = {
  name: 'Watch',
  cases: [
    {
      id: 'resume from a resourceVersion: exactly the later changes, in order; DELETED has the deletion RV',
      async run(b) {
        const ns = await b.namespace();
        await write(b, 'POST', cmPath(ns), configMap('before'));
        const list = await b.request('GET', `${cmPath(ns)}?labelSelector=conf%3Dwatch`);
        const from = String(field(list.json, 'metadata', 'resourceVersion'));
        await write(b, 'POST', cmPath(ns), configMap('after'));
        const changed = await write(b, 'PATCH', cmPath(ns, 'after'), { data: { k: 'w' } });
        await b.request('DELETE', cmPath(ns, 'after'));
        const watched = await b.watch(
          `${cmPath(ns)}?watch=1&labelSelector=conf%3Dwatch&resourceVersion=${from}`,
          { until: (events) => events.length >= 3 },
        );
        assert.equal(watched.code, 200);
        assert.deepEqual(
          watched.events.map((e) => `${e.type} ${nameOf(e)}`),
          ['ADDED after', 'MODIFIED after', 'DELETED after'],
        );
        const rvs = watched.events.map(rvOf);
        assert.ok(rvs[0]! > Number(from) && rvs[1]! > rvs[0]! && rvs[2]! > rvs[1]!, rvs.join(' '));
        assert.equal(rvs[1], Number(meta(changed).resourceVersion));
        assert.equal(field(watched.events[2]?.object, 'data', 'k'), 'w', 'the last state');
      },
    },
    {
      id: 'resourceVersion 0 starts with ADDED for what exists, then live changes',
      async run(b) {
        const ns = await b.namespace();
        await write(b, 'POST', cmPath(ns), configMap('old'));
        const watched = await b.watch(
          `${cmPath(ns)}?watch=1&labelSelector=conf%3Dwatch&resourceVersion=0`,
          {
            until: (events) => events.length >= 2,
            onOpen: async () => void (await write(b, 'POST', cmPath(ns), configMap('new'))),
          },
        );
        assert.deepEqual(
          watched.events.map((e) => `${e.type} ${nameOf(e)}`),
          ['ADDED old', 'ADDED new'],
        );
      },
    },
    {
      id: 'an object that stops matching the label selector is DELETED for that watch',
      async run(b) {
        const ns = await b.namespace();
        await write(b, 'POST', cmPath(ns), configMap('leaver'));
        const list = await b.request('GET', `${cmPath(ns)}?labelSelector=conf%3Dwatch`);
        const from = String(field(list.json, 'metadata', 'resourceVersion'));
        await write(b, 'PATCH', cmPath(ns, 'leaver'), { metadata: { labels: { conf: 'other' } } });
        const watched = await b.watch(
          `${cmPath(ns)}?watch=1&labelSelector=conf%3Dwatch&resourceVersion=${from}`,
          { until: (events) => events.length >= 1 },
        );
        assert.deepEqual(
          watched.events.map((e) => `${e.type} ${nameOf(e)}`),
          ['DELETED leaver'],
        );
        // The last state that matched, at the version of the change that made it leave.
        assert.equal(field(watched.events[0]?.object, 'metadata', 'labels', 'conf'), 'watch');
        assert.ok(rvOf(watched.events[0]!) > Number(from));
      },
    },
    {
      id: 'allowWatchBookmarks: a BOOKMARK (only kind, apiVersion, resourceVersion) before timeoutSeconds ends the stream',
      async run(b) {
        const ns = await b.namespace();
        const list = await b.request('GET', cmPath(ns));
        const from = String(field(list.json, 'metadata', 'resourceVersion'));
        const started = Date.now();
        const watched = await b.watch(
          `${cmPath(ns)}?watch=1&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=${from}`,
          { until: () => false, timeoutMs: 15_000 },
        );
        assert.ok(watched.closedByServer, 'the server ends the stream at timeoutSeconds');
        assert.ok(Date.now() - started < 12_000);
        const bookmark = watched.events.find((e) => e.type === 'BOOKMARK');
        assert.ok(bookmark, JSON.stringify(watched.events));
        assert.equal(bookmark.object['kind'], 'ConfigMap');
        assert.equal(bookmark.object['apiVersion'], 'v1');
        assert.deepEqual(Object.keys(bookmark.object.metadata ?? {}), ['resourceVersion']);
        assert.ok(rvOf(bookmark) >= Number(from));
      },
    },
    {
      id: 'sendInitialEvents: ADDED for what exists, then a BOOKMARK marked k8s.io/initial-events-end',
      async run(b) {
        const ns = await b.namespace();
        await write(b, 'POST', cmPath(ns), configMap('one'));
        await write(b, 'POST', cmPath(ns), configMap('two'));
        const watched = await b.watch(
          `${cmPath(ns)}?watch=1&labelSelector=conf%3Dwatch&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
          { until: (events) => events.some((e) => e.type === 'BOOKMARK') },
        );
        assert.deepEqual(
          watched.events.map((e) => e.type + (e.type === 'BOOKMARK' ? '' : ` ${nameOf(e)}`)),
          ['ADDED one', 'ADDED two', 'BOOKMARK'],
        );
        assert.deepEqual(field(watched.events[2]?.object, 'metadata', 'annotations'), {
          'k8s.io/initial-events-end': 'true',
        });
      },
    },
    {
      id: 'sendInitialEvents without resourceVersionMatch=NotOlderThan is 422 Invalid',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request(
          'GET',
          `${cmPath(ns)}?watch=1&allowWatchBookmarks=true&sendInitialEvents=true`,
        );
        assert.equal(reply.code, 422, reply.text);
        assert.equal(reply.json['reason'], 'Invalid');
      },
    },
    {
      id: 'a resourceVersion the watch cache no longer keeps: HTTP 200, one ERROR 410 Expired event, end',
      timeoutMs: 180_000,
      async run(b) {
        const ns = await b.namespace();
        const first = await write(b, 'POST', cmPath(ns), configMap('old'));
        const old = String(meta(first).resourceVersion);
        if (b.name === 'real') await new Promise((r) => setTimeout(r, WATCH_CACHE_FRESH_MS));
        let watched: Awaited<ReturnType<Backend['watch']>> | undefined;
        // Push the old version out of the window, checking after each batch (no fixed count).
        for (let batch = 0; batch < 40; batch++) {
          for (let i = 0; i < 50; i++) {
            await write(b, 'PATCH', cmPath(ns, 'old'), { data: { k: `${batch}-${i}` } });
          }
          watched = await b.watch(`${cmPath(ns)}?watch=1&resourceVersion=${old}`, {
            until: (events) => events.length > 0,
            timeoutMs: 2_000,
          });
          if (watched.events[0]?.type === 'ERROR') break;
        }
        assert.ok(watched);
        assert.equal(watched.code, 200);
        assert.equal(watched.events.length, 1, JSON.stringify(watched.events).slice(0, 300));
        const status = watched.events[0]?.object ?? {};
        assert.equal(status['kind'], 'Status');
        assert.equal(status['status'], 'Failure');
        assert.equal(status['reason'], 'Expired');
        assert.equal(status['code'], 410);
        assert.match(
          String(status['message']),
          new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`),
        );
      },
    },
  ],
};
