import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  startOpsServer,
  type OpsServer,
  type Readiness,
} from '../../../src/adapters/http/ops-server.js';
import { tickReadiness } from '../../../src/adapters/http/readiness.js';
import { KubeError } from '../../../src/adapters/kube/errors.js';
import { apiRefusal } from '../../../src/adapters/kube/refusal.js';
import { observeFleet } from '../../../src/adapters/metrics/observe.js';
import { createMetrics } from '../../../src/adapters/metrics/registry.js';
import { fleetNode, fleetView } from '../../fakes/fleet.js';

describe('ops server over HTTP', () => {
  const metrics = createMetrics();
  let readiness: Readiness = { ok: false, why: 'no tick has succeeded yet' };
  let server: OpsServer;

  before(async () => {
    observeFleet(
      metrics,
      fleetView({
        nodes: [fleetNode('node-1', { marked: true })],
        slots: [{ name: 'kubemaint-slot-0', holder: '' }],
      }),
    );
    server = await startOpsServer({ port: 0, host: '127.0.0.1', metrics, ready: () => readiness });
  });
  after(() => server.close());

  const get = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}${path}`, init);
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      body: await res.text(),
    };
  };

  it('GET /healthz (and /livez, its Kubernetes name) answers 200 ok', async () => {
    for (const path of ['/healthz', '/livez']) {
      assert.deepEqual(await get(path), {
        status: 200,
        type: 'text/plain; charset=utf-8',
        body: 'ok\n',
      });
    }
  });

  it('GET /readyz follows the readiness answer, with the reason', async () => {
    const notReady = await get('/readyz');
    assert.equal(notReady.status, 503);
    assert.equal(notReady.body, 'not ready: no tick has succeeded yet\n');
    readiness = { ok: true, why: 'last successful tick 3s ago' };
    assert.deepEqual(
      { ...(await get('/readyz')), type: undefined },
      { status: 200, type: undefined, body: 'ok: last successful tick 3s ago\n' },
    );
  });

  it('GET /metrics serves the Prometheus exposition', async () => {
    const res = await get('/metrics');
    assert.equal(res.status, 200);
    assert.match(res.type, /^text\/plain; version=0\.0\.4/);
    assert.match(res.body, /^kubemaint_reboot_required\{node="node-1"\} 1$/m);
    assert.match(res.body, /^kubemaint_slots_total 1$/m);
    assert.match(res.body, /^process_resident_memory_bytes \d+/m);
  });

  const refusals: {
    name: string;
    path: string;
    init?: RequestInit;
    status: number;
    body: RegExp;
  }[] = [
    { name: 'an unknown path', path: '/', status: 404, body: /not found: \/ \(try \/healthz/ },
    { name: 'a near miss', path: '/metricsz', status: 404, body: /not found: \/metricsz/ },
    {
      name: 'POST /metrics',
      path: '/metrics',
      init: { method: 'POST' },
      status: 405,
      body: /method POST not allowed/,
    },
  ];
  for (const r of refusals) {
    it(`answers ${r.status} to ${r.name}`, async () => {
      const res = await get(r.path, r.init);
      assert.equal(res.status, r.status);
      assert.match(res.body, r.body);
    });
  }

  it('HEAD /healthz answers without a body', async () => {
    const res = await get('/healthz', { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.body, '');
  });

  it('a readiness check that throws is a 500 with the message', async () => {
    const failing = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      metrics,
      ready: () => Promise.reject(new Error('lost the cluster')),
    });
    try {
      const res = await fetch(`${failing.url}/readyz`);
      assert.equal(res.status, 500);
      assert.equal(await res.text(), 'error: lost the cluster\n');
    } finally {
      await failing.close();
    }
  });
});

describe('ops server lifecycle', () => {
  it('refuses a port in use with a clear error', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      await assert.rejects(
        startOpsServer({
          port,
          host: '127.0.0.1',
          metrics: createMetrics({ processMetrics: false }),
          ready: () => ({ ok: true }),
        }),
        (error: Error & { code?: string; hint?: string }) => {
          assert.equal(error.code, 'config_invalid');
          assert.match(
            error.message,
            new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`),
          );
          assert.match(error.hint ?? '', /another ops port/);
          return true;
        },
      );
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('listens on 127.0.0.1 unless told otherwise: /metrics is not for every interface', async () => {
    const server = await startOpsServer({
      port: 0,
      metrics: createMetrics({ processMetrics: false }),
      ready: () => ({ ok: true }),
    });
    try {
      assert.equal(server.host, '127.0.0.1');
      assert.equal(server.url, `http://127.0.0.1:${server.port}`);
    } finally {
      await server.close();
    }
  });

  it('close() finishes despite an idle keep-alive connection, then refuses connections', async () => {
    const server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      metrics: createMetrics({ processMetrics: false }),
      ready: () => ({ ok: true }),
    });
    const res = await fetch(`${server.url}/healthz`, { headers: { connection: 'keep-alive' } });
    assert.equal(await res.text(), 'ok\n');
    await server.close();
    await assert.rejects(fetch(`${server.url}/healthz`), /fetch failed/);
  });

  it('close() lets a request in flight finish', async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      metrics: createMetrics({ processMetrics: false }),
      ready: async () => {
        arrived();
        await gate;
        return { ok: true, why: 'slow but fine' };
      },
    });
    const pending = fetch(`${server.url}/readyz`).then(async (r) => [r.status, await r.text()]);
    await reached;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(closed, false, 'close() waits for the request in flight');
    release();
    assert.deepEqual(await pending, [200, 'ok: slow but fine\n']);
    await closing;
  });
});

describe('tickReadiness', () => {
  it('is not ready before a tick, ready after one, stale after maxAgeMs', () => {
    let now = Date.parse('2026-11-01T00:00:00Z');
    const readiness = tickReadiness({ clock: { now: () => new Date(now) }, maxAgeMs: 60_000 });
    assert.deepEqual(readiness.ready(), { ok: false, why: 'no tick has succeeded yet' });
    readiness.record({ ok: false, error: new Error('connect ECONNREFUSED') });
    assert.deepEqual(readiness.ready(), {
      ok: false,
      why: 'no tick has succeeded yet; last tick failed: connect ECONNREFUSED',
    });
    readiness.record({ ok: true });
    now += 5_000;
    assert.deepEqual(readiness.ready(), { ok: true, why: 'last successful tick 5s ago' });
    readiness.record({ ok: false, error: 'timeout' });
    now += 10_000;
    assert.deepEqual(readiness.ready(), {
      ok: true,
      why: 'last successful tick 15s ago; last tick failed: timeout',
    });
    now += 50_000;
    assert.deepEqual(readiness.ready(), {
      ok: false,
      why: 'last successful tick 65s ago (limit 60s); last tick failed: timeout',
    });
    readiness.record({ ok: true });
    assert.equal(readiness.ready().ok, true);
  });

  it('is not ready at once when the apiserver refuses serve (a tick or a watch), until a call succeeds', () => {
    const now = Date.parse('2026-11-01T00:00:00Z');
    const readiness = tickReadiness({ clock: { now: () => new Date(now) }, refusal: apiRefusal });
    readiness.record({ ok: true });
    // Away is not refused: one failed call does not flip readiness.
    readiness.contact({
      ok: false,
      error: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    assert.equal(readiness.ready().ok, true);
    const tls = Object.assign(new Error('unable to verify the first certificate'), {
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    readiness.contact({ ok: false, error: new TypeError('fetch failed', { cause: tls }) });
    const refused = readiness.ready();
    assert.equal(refused.ok, false);
    assert.equal(
      refused.why,
      "the apiserver refuses serve: the TLS handshake fails: the apiserver's certificate is not trusted " +
        '(UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate); was the cluster ' +
        're-created with a new CA? restart serve with its current kubeconfig',
    );
    // Still refused while the apiserver is away, ready again once a call gets through.
    readiness.record({ ok: false, error: new Error('connect ECONNREFUSED') });
    assert.equal(readiness.ready().ok, false);
    readiness.contact({ ok: true });
    assert.equal(readiness.ready().ok, true);
    readiness.record({
      ok: false,
      error: new KubeError('forbidden', 'list nodes: Unauthorized', { status: 401 }),
    });
    assert.match(
      readiness.ready().why ?? '',
      /does not accept serve's credentials \(401 Unauthorized\)/,
    );
    readiness.record({ ok: true });
    assert.equal(readiness.ready().ok, true);
  });
});

describe('apiRefusal', () => {
  it('names refused handshakes and credentials, not an apiserver that is away or says 403', () => {
    const withCode = (code: string) => Object.assign(new Error(code), { code });
    assert.match(apiRefusal(withCode('SELF_SIGNED_CERT_IN_CHAIN'))!, /certificate is not trusted/);
    assert.match(apiRefusal(withCode('ERR_TLS_CERT_ALTNAME_INVALID'))!, /not trusted/);
    assert.match(
      apiRefusal(withCode('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA'))!,
      /refuses serve's client certificate/,
    );
    assert.match(apiRefusal({ statusCode: 401 })!, /401 Unauthorized/);
    for (const away of [withCode('ECONNREFUSED'), withCode('ECONNRESET'), { statusCode: 503 }])
      assert.equal(apiRefusal(away), undefined);
    assert.equal(apiRefusal(new KubeError('forbidden', 'x', { status: 403 })), undefined);
  });
});
