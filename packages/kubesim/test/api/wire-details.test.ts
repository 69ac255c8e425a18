/**
 * Wire-level details that typed clients hide: protobuf DELETE bodies, strategic-merge directives
 * kubectl apply emits, Table output, health and authentication (OpenAPI: openapi.test.ts).
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startSimApi, type SimApi } from '../support.js';
import { R } from '../../src/types.js';

interface Reply {
  code: number;
  headers: Record<string, unknown>;
  json: Record<string, unknown>;
}

function call(
  sim: SimApi,
  method: string,
  path: string,
  options: { body?: Buffer | string; headers?: Record<string, string>; token?: string | null } = {},
): Promise<Reply> {
  const token = options.token === undefined ? sim.api.token : options.token;
  return new Promise((resolve, reject) => {
    const req = request(
      `${sim.api.url}${path}`,
      {
        method,
        ca: sim.api.caPem,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          // Node's client sends no Content-Length for a DELETE body on its own; kubectl does.
          ...(options.body === undefined
            ? {}
            : { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          let json: Record<string, unknown>;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = { text };
          }
          resolve({ code: res.statusCode ?? 0, headers: res.headers, json });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Minimal protobuf writer: enough for a k8s\0 envelope around DeleteOptions{gracePeriodSeconds}. */
function protoDeleteOptions(grace: number): Buffer {
  const field = (no: number, payload: Buffer) =>
    Buffer.concat([Buffer.from([(no << 3) | 2, payload.length]), payload]);
  const typeMeta = Buffer.concat([
    field(1, Buffer.from('v1')),
    field(2, Buffer.from('DeleteOptions')),
  ]);
  const raw = Buffer.from([(1 << 3) | 0, grace]);
  return Buffer.concat([Buffer.from('k8s\0', 'binary'), field(1, typeMeta), field(2, raw)]);
}

const podPath = (name: string) => `/api/v1/namespaces/default/pods/${name}`;

describe('sim API wire details', () => {
  let sim: SimApi;
  before(async () => {
    sim = await startSimApi();
  });
  after(async () => sim.close());

  it('health endpoints and /version answer without a token; the API does not', async () => {
    for (const path of ['/healthz', '/readyz', '/livez', '/version']) {
      assert.equal((await call(sim, 'GET', path, { token: null })).code, 200, path);
    }
    const denied = await call(sim, 'GET', '/api/v1/nodes', { token: null });
    assert.equal(denied.code, 401);
    assert.equal(denied.json['reason'], 'Unauthorized');
  });

  it('decodes a protobuf DeleteOptions body instead of refusing it', async () => {
    sim.store.create(R.pods, {
      metadata: { name: 'pb', namespace: 'default' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
    });
    const reply = await call(sim, 'DELETE', podPath('pb'), {
      body: protoDeleteOptions(7),
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
    });
    assert.equal(reply.code, 200, JSON.stringify(reply.json));
    assert.equal(sim.store.get(R.pods, 'default', 'pb')!.metadata.deletionGracePeriodSeconds, 7);
  });

  it('applies the strategic-merge directives kubectl apply sends', async () => {
    sim.store.create(R.pods, {
      metadata: { name: 'smp', namespace: 'default', finalizers: ['a/x', 'b/y'] },
      spec: {
        containers: [
          { name: 'a', image: '1' },
          { name: 'b', image: '2' },
        ],
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    });
    const patch = {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a/x'] },
      spec: {
        '$setElementOrder/containers': [{ name: 'b' }],
        containers: [
          { name: 'a', $patch: 'delete' },
          { name: 'b', image: '3' },
        ],
        tolerations: [{ key: 'other', operator: 'Exists' }],
      },
    };
    const reply = await call(sim, 'PATCH', podPath('smp'), {
      body: JSON.stringify(patch),
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(reply.code, 200, JSON.stringify(reply.json));
    const pod = sim.store.get(R.pods, 'default', 'smp')!;
    assert.deepEqual(pod.metadata.finalizers, ['b/y']);
    // Names and images: the rest is the container defaults the apiserver fills in.
    const containers = pod.spec!['containers'] as { name: string; image: string }[];
    assert.deepEqual(
      containers.map(({ name, image }) => ({ name, image })),
      [{ name: 'b', image: '3' }],
    );
    assert.deepEqual(
      pod.spec!['tolerations'],
      [{ key: 'other', operator: 'Exists' }],
      'tolerations have no merge key: replaced',
    );
  });

  it('refuses unknown patch types with 415 (apply needs a fieldManager: 422)', async () => {
    const reply = await call(sim, 'PATCH', podPath('smp'), {
      body: 'x: 1',
      headers: { 'content-type': 'application/x-yaml-patch' },
    });
    assert.equal(reply.code, 415);
    assert.equal(reply.json['reason'], 'UnsupportedMediaType');
    const apply = await call(sim, 'PATCH', podPath('smp'), {
      body: 'x: 1',
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(apply.code, 422);
  });

  it('answers a Table when kubectl asks for one', async () => {
    sim.store.create(R.nodes, {
      metadata: { name: 'tn' },
      spec: { unschedulable: true },
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    });
    const reply = await call(sim, 'GET', '/api/v1/nodes', {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    assert.equal(reply.json['kind'], 'Table');
    const rows = reply.json['rows'] as { cells: unknown[] }[];
    assert.deepEqual(rows[0]!.cells.slice(0, 2), ['tn', 'NotReady,SchedulingDisabled']);
  });

  it('binds a pod once; a second binding is 409', async () => {
    sim.store.create(R.pods, {
      metadata: { name: 'unbound', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    const body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'unbound' },
      target: { kind: 'Node', name: 'n7' },
    });
    const first = await call(sim, 'POST', `${podPath('unbound')}/binding`, {
      body,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(first.code, 201);
    assert.equal(sim.store.get(R.pods, 'default', 'unbound')!.spec!['nodeName'], 'n7');
    const second = await call(sim, 'POST', `${podPath('unbound')}/binding`, {
      body,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(second.code, 409);
  });

  it('unknown paths and subresources are 404 Status objects; a URL/body name mismatch is 400', async () => {
    const missing = await call(sim, 'GET', '/apis/widgets.example.com/v1/widgets');
    assert.deepEqual(
      [missing.code, missing.json['kind'], missing.json['reason']],
      [404, 'Status', 'NotFound'],
    );
    assert.equal((await call(sim, 'GET', `${podPath('smp')}/proxy`)).code, 404);
    const mismatch = await call(sim, 'PUT', podPath('smp'), {
      body: JSON.stringify({ metadata: { name: 'other', namespace: 'default' }, spec: {} }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(mismatch.code, 400);
  });
});
