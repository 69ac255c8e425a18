/**
 * The watch stream against a scripted API server, for what the sim cannot be made to do on demand:
 * a too-old resourceVersion (the in-stream ERROR 410 kube-apiserver sends, and a plain HTTP 410),
 * and a list that fails before it succeeds.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import { pino } from 'pino';
import { kubeConfigFor } from '../../../src/adapters/kube/client.js';
import { startWatchStream, type WatchStream } from '../../../src/adapters/kube/watch-stream.js';
import { nodeFingerprint } from '../../../src/adapters/kube/watch-fingerprints.js';
import { waitFor } from '../../support/sim.js';

type Step = (res: ServerResponse) => void;

const node = (name: string, rv: string, ready = 'True') => ({
  kind: 'Node',
  apiVersion: 'v1',
  metadata: { name, resourceVersion: rv, labels: { 'kubemaint.io/state': 'verifying' } },
  status: {
    conditions: [{ type: 'Ready', status: ready, lastHeartbeatTime: `2026-11-01T00:00:${rv}Z` }],
  },
});
const json =
  (status: number, body: unknown): Step =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
const list = (rv: string, items: unknown[]) =>
  json(200, { kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items });
/** A watch stream: the events, then the stream stays open (or ends, when `end`). */
const stream =
  (events: { type: string; object: unknown }[], end = false): Step =>
  (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    for (const e of events) res.write(`${JSON.stringify(e)}\n`);
    if (end) res.end();
  };
const gone = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'too old resource version: 5 (9)',
  reason: 'Expired',
  code: 410,
};

interface Scripted {
  server: Server;
  url: string;
  requests: string[];
}

async function scriptedApi(lists: Step[], watches: Step[]): Promise<Scripted> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://api');
    const isWatch = url.searchParams.get('watch') === 'true';
    requests.push(
      `${isWatch ? 'watch' : 'list'} rv=${url.searchParams.get('resourceVersion') ?? ''}`,
    );
    const step = (isWatch ? watches : lists).shift();
    if (step) step(res);
    else if (isWatch)
      stream([])(res); // nothing scripted: an open, quiet stream
    else json(500, { kind: 'Status', code: 500, message: 'unscripted list' })(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

describe('watch stream: 410 Gone and errors', () => {
  let api: Scripted | undefined;
  let watch: WatchStream | undefined;
  afterEach(async () => {
    watch?.stop();
    api?.server.closeAllConnections();
    await new Promise<void>((resolve) => (api ? api.server.close(() => resolve()) : resolve()));
  });

  const start = (scripted: Scripted, changes: string[]) => {
    const kc = kubeConfigFor(scripted.url);
    const core = kc.makeApiClient(CoreV1Api);
    return startWatchStream({
      name: 'nodes kubemaint.io/state',
      watch: new Watch(kc),
      path: '/api/v1/nodes',
      query: { labelSelector: 'kubemaint.io/state' },
      list: async () => {
        const listed = await core.listNode({ labelSelector: 'kubemaint.io/state' });
        return { resourceVersion: listed.metadata?.resourceVersion ?? '', items: listed.items };
      },
      fingerprint: nodeFingerprint,
      onChange: (change) => changes.push(change),
      log: pino({ level: 'silent' }),
      backoff: { initialMs: 10, maxMs: 40 },
    });
  };

  const goneCases: { name: string; firstWatch: Step }[] = [
    {
      name: 'an in-stream ERROR 410 event',
      firstWatch: stream([{ type: 'ERROR', object: gone }], true),
    },
    { name: 'an HTTP 410 answer', firstWatch: json(410, gone) },
  ];
  for (const c of goneCases) {
    it(`re-lists after ${c.name} and reports what the gap hid`, async () => {
      api = await scriptedApi(
        [list('5', [node('n1', '4', 'False')]), list('9', [node('n1', '8', 'True')])],
        [c.firstWatch],
      );
      const changes: string[] = [];
      watch = start(api, changes);
      await watch.listed;
      await waitFor('a second list and watch', () =>
        api!.requests.includes('watch rv=9') ? true : undefined,
      );
      assert.deepEqual(api.requests.slice(0, 4), [
        'list rv=',
        'watch rv=5',
        'list rv=',
        'watch rv=9',
      ]);
      assert.deepEqual(changes, ['nodes kubemaint.io/state: relisted']);
    });
  }

  it('a re-list that finds nothing new reports nothing', async () => {
    api = await scriptedApi(
      [list('5', [node('n1', '4')]), list('9', [node('n1', '7')])],
      [stream([{ type: 'ERROR', object: gone }], true)],
    );
    const changes: string[] = [];
    watch = start(api, changes);
    await waitFor('the re-list', () => (api!.requests.includes('watch rv=9') ? true : undefined));
    assert.deepEqual(changes, []);
  });

  it('retries a failing list with backoff, then follows events and bookmarks', async () => {
    api = await scriptedApi(
      [
        json(500, { kind: 'Status', code: 500, message: 'etcd timeout' }),
        list('5', [node('n1', '4')]),
      ],
      [
        stream(
          [
            { type: 'MODIFIED', object: node('n1', '6') }, // heartbeat only: not a change
            {
              type: 'BOOKMARK',
              object: { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: '7' } },
            },
            { type: 'MODIFIED', object: node('n1', '8', 'False') },
          ],
          true,
        ),
      ],
    );
    const changes: string[] = [];
    watch = start(api, changes);
    await waitFor('the event after the bookmark', () => (changes.length > 0 ? true : undefined));
    await waitFor('a re-watch from the last version', () =>
      api!.requests.includes('watch rv=8') ? true : undefined,
    );
    assert.deepEqual(api.requests.slice(0, 3), ['list rv=', 'list rv=', 'watch rv=5']);
    assert.deepEqual(changes, ['nodes kubemaint.io/state: /n1 changed']);
  });
});
