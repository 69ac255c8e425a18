/**
 * The status page's routes on the ops server: the document, its script, styles and icon with a
 * Content-Security-Policy that allows nothing inline, the Server-Sent Events stream (the fragment at
 * once, again when it changed, not when it did not), bad ranges and methods refused, streams ended on
 * close, and a clear 404 when the page is off.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startOpsServer, type OpsServer } from '../../../src/adapters/http/ops-server.js';
import { statusPage } from '../../../src/adapters/http/status-page.js';
import { createMetrics } from '../../../src/adapters/metrics/registry.js';

/** Reads an event stream until `count` events arrived; resolves with their data. */
function events(url: string, count: number): { done: Promise<string[]>; close(): void } {
  const received: string[] = [];
  let close = () => undefined as void;
  const done = new Promise<string[]>((resolve, reject) => {
    const req = request(url, (res) => {
      assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!block.startsWith('event: view\n')) continue;
          received.push(
            block
              .split('\n')
              .filter((l) => l.startsWith('data: '))
              .map((l) => l.slice(6))
              .join('\n'),
          );
          if (received.length === count) resolve(received);
        }
      });
      res.on('end', () => resolve(received));
    });
    req.on('error', reject);
    req.end();
    close = () => void req.destroy();
  });
  return { done, close: () => close() };
}

describe('status page routes', () => {
  let server: OpsServer;
  let fragment = 'first\nsecond line';
  const page = statusPage({
    page: (range) => `<!doctype html><main data-range="${range}">${fragment}</main>`,
    fragment: (range) => `${range}: ${fragment}`,
    script: 'console.log(1)',
    style: 'body{}',
    icon: '<svg/>',
    maxStreams: 2,
  });

  before(async () => {
    server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      metrics: createMetrics({ processMetrics: false }),
      ready: () => ({ ok: true }),
      page,
    });
  });
  after(() => server.close());

  const get = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };

  it('serves the document with a policy that allows nothing inline or from elsewhere', async () => {
    const res = await get('/status?range=24h');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(res.body, /data-range="24h"/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });

  it('serves its script, styles and icon with their types', async () => {
    const table: [string, string, string][] = [
      ['/status/page.js', 'text/javascript; charset=utf-8', 'console.log(1)'],
      ['/status/page.css', 'text/css; charset=utf-8', 'body{}'],
      ['/status/icon.svg', 'image/svg+xml', '<svg/>'],
    ];
    for (const [path, type, body] of table) {
      const res = await get(path);
      assert.deepEqual([res.status, res.headers.get('content-type'), res.body], [200, type, body]);
    }
  });

  const refusals: [string, string, RequestInit, number, RegExp][] = [
    ['a range that is not one', '/status?range=2y', {}, 400, /not one of fit, 1h, 6h, 24h, 7d/],
    ['a write', '/status', { method: 'POST' }, 405, /method POST not allowed/],
    ['an unknown file', '/status/other', {}, 404, /the status page is \/status/],
  ];
  for (const [what, path, init, status, body] of refusals) {
    it(`answers ${status} to ${what}`, async () => {
      const res = await get(path, init);
      assert.equal(res.status, status);
      assert.match(res.body, body);
    });
  }

  it('sends /status/ back to /status, where its relative links work', async () => {
    const res = await get('/status/');
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), '../status');
  });

  it('streams the fragment at once, then each change once, each line a data line', async () => {
    const stream = events(`${server.url}/status/events?range=1h`, 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    page.changed(); // nothing changed: nothing sent
    fragment = 'third';
    page.changed();
    const got = await stream.done;
    stream.close();
    assert.deepEqual(got, ['1h: first\nsecond line', '1h: third']);
  });

  it('a carriage return in a value cannot start a line of its own', async () => {
    fragment = 'a\revent: evil\r\ndata: b';
    const stream = events(`${server.url}/status/events`, 1);
    const [data] = await stream.done;
    stream.close();
    assert.equal(data, 'fit: a\nevent: evil\ndata: b');
  });

  it('refuses more streams than it keeps, and ends them all on close', async () => {
    const one = events(`${server.url}/status/events`, 99);
    const two = events(`${server.url}/status/events`, 99);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const third = await get('/status/events');
    assert.equal(third.status, 503);
    await server.close();
    // Both streams end (close() did not wait out its grace period for them).
    assert.equal((await one.done).length, 1);
    assert.equal((await two.done).length, 1);
  });
});

describe('status page off', () => {
  it('says how to turn it on', async () => {
    const server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      metrics: createMetrics({ processMetrics: false }),
      ready: () => ({ ok: true }),
    });
    try {
      const res = await fetch(`${server.url}/status`);
      assert.equal(res.status, 404);
      assert.match(
        await res.text(),
        /status page is off: .*serve\.statusPage: true or --status-page/,
      );
    } finally {
      await server.close();
    }
  });
});
