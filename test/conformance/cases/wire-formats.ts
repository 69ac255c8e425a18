/**
 * What real clients put on the wire besides plain JSON: protobuf bodies (kubectl 1.32+ creates with
 * its typed clients in protobuf, and a client that prefers protobuf gets objects, Status errors and
 * watch events in protobuf), query booleans spelled as the Python client spells them
 * (`watch=True`), and the Tables kubectl get prints (`-o wide` shows the priority-1 columns).
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import {
  decodeProtobuf,
  decodeProtobufWatchEvents,
  encodeProtobuf,
  PROTOBUF,
} from '@kubemaint/kubesim/api';
import type { Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { field } from '../fixtures.js';

type Obj = Record<string, unknown>;
const cmPath = (ns: string, name = '') =>
  `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
/** What kubectl's typed clients send. */
const TYPED = { contentType: PROTOBUF, accept: `${PROTOBUF},application/json` };

async function createInProtobuf(b: Backend, path: string, object: Obj) {
  const reply = await b.request('POST', path, { ...TYPED, body: encodeProtobuf(object) });
  assert.equal(reply.code, 201, reply.text);
  assert.equal(reply.headers['content-type'], PROTOBUF);
  return decodeProtobuf(reply.raw);
}

export const wireFormatCases: CaseGroup = {
  name: 'Wire formats (protobuf, query booleans, tables, compression)',
  cases: [
    {
      id: 'an answer above 128 KiB is gzipped for a client that accepts gzip, a small one is not',
      async run(b) {
        const ns = await b.namespace();
        // Three ConfigMaps of 60 KiB: their list is above kube-apiserver's threshold, one is not.
        for (const name of ['a', 'b', 'c'])
          await b.request('POST', cmPath(ns), {
            body: {
              metadata: { name, labels: { big: 'yes' } },
              data: { blob: 'x'.repeat(60 * 1024) },
            },
          });
        const gzip = { headers: { 'Accept-Encoding': 'gzip' } };
        // Labelled: a real namespace also holds the root-CA publisher's kube-root-ca.crt.
        const big = `${cmPath(ns)}?labelSelector=big%3Dyes`;
        const list = await b.request('GET', big, gzip);
        assert.equal(list.code, 200);
        assert.equal(list.headers['content-encoding'], 'gzip');
        assert.match(String(list.headers['vary']), /Accept-Encoding/);
        const items = JSON.parse(gunzipSync(list.raw).toString()) as { items: Obj[] };
        assert.equal(items.items.length, 3);
        const one = await b.request('GET', cmPath(ns, 'a'), gzip);
        assert.equal(one.headers['content-encoding'], undefined, 'one ConfigMap is below 128 KiB');
        assert.equal(field(one.json, 'metadata', 'name'), 'a');
        const plain = await b.request('GET', big);
        assert.equal(plain.headers['content-encoding'], undefined, 'no gzip unless asked for');
        assert.equal((plain.json['items'] as Obj[]).length, 3);
      },
    },
    {
      id: 'a protobuf create is answered in protobuf with the stored object',
      async run(b) {
        const ns = await b.namespace();
        const created = await createInProtobuf(b, cmPath(ns), {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'settings', labels: { app: 'web' } },
          data: { mode: 'fast' },
          binaryData: { blob: Buffer.from([0, 1, 2]).toString('base64') },
        });
        assert.equal(created['kind'], 'ConfigMap');
        assert.equal(field(created, 'metadata', 'name'), 'settings');
        assert.match(String(field(created, 'metadata', 'uid')), /^[0-9a-f-]{36}$/);
        assert.match(String(field(created, 'metadata', 'creationTimestamp')), /Z$/);
        const read = await b.request('GET', cmPath(ns, 'settings'));
        assert.deepEqual(read.json['data'], { mode: 'fast' });
        assert.deepEqual(read.json['binaryData'], { blob: 'AAEC' });
        assert.deepEqual(created['data'], read.json['data']);
      },
    },
    {
      id: 'a protobuf create keeps an explicit zero of a pointer field (Deployment replicas: 0)',
      async run(b) {
        const ns = await b.namespace();
        await createInProtobuf(b, `/apis/apps/v1/namespaces/${ns}/deployments`, {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'idle' },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: 'idle' } },
            template: {
              metadata: { labels: { app: 'idle' } },
              spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
            },
          },
        });
        const read = await b.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/idle`);
        assert.equal(field(read.json, 'spec', 'replicas'), 0);
        const containers = field(read.json, 'spec', 'template', 'spec', 'containers') as Obj[];
        assert.equal(containers[0]?.['image'], 'registry.k8s.io/pause:3.10');
      },
    },
    {
      id: 'a failure is a protobuf Status when the client prefers protobuf',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('GET', cmPath(ns, 'ghost'), { accept: TYPED.accept });
        assert.equal(reply.code, 404);
        assert.equal(reply.headers['content-type'], PROTOBUF);
        const status = decodeProtobuf(reply.raw);
        assert.equal(status['kind'], 'Status');
        assert.equal(status['reason'], 'NotFound');
        assert.equal(status['message'], 'configmaps "ghost" not found');
        assert.equal(status['code'], 404);
      },
    },
    {
      id: 'a watch for a protobuf client streams length-prefixed WatchEvents',
      async run(b) {
        const ns = await b.namespace();
        await b.request('POST', cmPath(ns), {
          body: { metadata: { name: 'seen' }, data: { a: '1' } },
        });
        const reply = await b.request('GET', `${cmPath(ns)}?watch=1&timeoutSeconds=1`, {
          accept: TYPED.accept,
        });
        assert.equal(reply.code, 200);
        assert.equal(reply.headers['content-type'], `${PROTOBUF};stream=watch`);
        // Real namespaces also hold kube-root-ca.crt: look for ours among the ADDED events.
        const events = decodeProtobufWatchEvents(reply.raw);
        const seen = events.find((e) => field(e.object, 'metadata', 'name') === 'seen');
        assert.equal(seen?.type, 'ADDED', JSON.stringify(events));
        assert.equal(field(seen.object, 'kind'), 'ConfigMap');
        assert.deepEqual(field(seen.object, 'data'), { a: '1' });
      },
    },
    {
      id: 'watch=True (the Python client) is a watch; only absent, 0 and false are not',
      async run(b) {
        const ns = await b.namespace();
        await b.request('POST', cmPath(ns), { body: { metadata: { name: 'one' } } });
        for (const spelling of ['True', 'TRUE', 't']) {
          const watch = await b.request('GET', `${cmPath(ns)}?watch=${spelling}&timeoutSeconds=1`);
          assert.equal(watch.code, 200);
          const first = JSON.parse(watch.text.split('\n')[0] ?? '') as Obj;
          assert.equal(first['type'], 'ADDED', `watch=${spelling}: ${watch.text}`);
        }
        for (const spelling of ['False', '0']) {
          const list = await b.request('GET', `${cmPath(ns)}?watch=${spelling}`);
          assert.equal(list.json['kind'], 'ConfigMapList', `watch=${spelling}`);
        }
      },
    },
    {
      id: 'a Deployment Table has the -o wide columns (containers, images, selector) at priority 1',
      async run(b) {
        const ns = await b.namespace();
        const created = await b.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
          body: {
            metadata: { name: 'web' },
            spec: {
              replicas: 0,
              selector: {
                matchLabels: { app: 'web' },
                matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'edge'] }],
              },
              template: {
                metadata: { labels: { app: 'web', tier: 'front' } },
                spec: {
                  containers: [
                    { name: 'web', image: 'nginx:1.27' },
                    { name: 'log', image: 'busybox:1.36' },
                  ],
                },
              },
            },
          },
        });
        assert.equal(created.code, 201, created.text);
        const table = await b.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments`, {
          accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
        });
        assert.equal(table.json['kind'], 'Table');
        const columns = (table.json['columnDefinitions'] as Obj[]).map(
          (c) => `${String(c['name'])}:${String(c['priority'])}`,
        );
        assert.deepEqual(columns, [
          'Name:0',
          'Ready:0',
          'Up-to-date:0',
          'Available:0',
          'Age:0',
          'Containers:1',
          'Images:1',
          'Selector:1',
        ]);
        const [row] = table.json['rows'] as { cells: unknown[] }[];
        assert.deepEqual(row?.cells.slice(5), [
          'web,log',
          'nginx:1.27,busybox:1.36',
          'app=web,tier in (edge,front)',
        ]);
      },
    },
  ],
};
