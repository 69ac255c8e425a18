/**
 * The fan-out: every URL gets the event, failures are retried with backoff or after Retry-After,
 * a refusal is not retried, failures are logged with masked URLs, and `notify` never waits for the
 * network. Sleeps are recorded instead of waited, so no test depends on time.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createNotifier } from '../../../src/adapters/notify/notifier.js';
import { parseNotifyUrls } from '../../../src/adapters/notify/parse.js';
import type { MaintenanceEvent } from '../../../src/core/events.js';
import { compileMessageTemplates } from '../../../templates/notify/messages.js';
import { startHttpRecorder, type HttpRecorder } from '../../support/http-recorder.js';

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream), lines };
}

const event: MaintenanceEvent = {
  kind: 'rebooting',
  node: 'worker-1',
  cluster: 'prod',
  requestId: 'r-7f3a9c',
  action: 'reboot',
};

describe('Notifier', () => {
  let receiver: HttpRecorder;
  before(async () => {
    receiver = await startHttpRecorder();
  });
  after(() => receiver.close());

  function setup(urls: string[], retry = {}) {
    receiver.requests.length = 0;
    const sleeps: number[] = [];
    const { log, lines } = capturingLogger();
    const notifier = createNotifier({
      targets: parseNotifyUrls(urls),
      log,
      io: { baseUrl: receiver.url },
      random: () => 0.5,
      sleep: async (ms) => void sleeps.push(ms),
      retry,
    });
    return { notifier, sleeps, lines };
  }

  it('sends the rendered event to every URL', async () => {
    const { notifier } = setup([
      'generic+https://a.example.com/one?template=json',
      'generic+https://b.example.com/two?template=json',
    ]);
    await notifier.notify(event);
    await notifier.flush();
    const paths = receiver.requests.map((r) => r.path).sort();
    assert.deepEqual(paths, ['/one', '/two']);
    for (const request of receiver.requests) {
      assert.deepEqual(JSON.parse(request.body), {
        title: '[kubemaint] prod: worker-1 rebooting',
        message: 'Rebooting node worker-1 in prod',
      });
    }
  });

  it('uses the configured template for the event', async () => {
    receiver.requests.length = 0;
    const { log } = capturingLogger();
    const notifier = createNotifier({
      targets: parseNotifyUrls(['generic+https://a.example.com/t']),
      log,
      io: { baseUrl: receiver.url },
      templates: compileMessageTemplates({ templates: { rebooting: 'kured style: %s' } }),
    });
    await notifier.notify(event);
    await notifier.flush();
    assert.equal(receiver.requests[0]?.body, 'kured style: worker-1');
  });

  it('waits what a 429 Retry-After asks, then backs off exponentially after 500s', async () => {
    receiver.reply(
      { status: 429, headers: { 'Retry-After': '7' } },
      { status: 500, body: 'boom' },
      { status: 503 },
      { status: 200 },
    );
    const { notifier, sleeps, lines } = setup(['generic+https://a.example.com/x'], {
      baseDelayMs: 1_000,
    });
    await notifier.notify(event);
    await notifier.flush();
    assert.equal(receiver.requests.length, 4);
    // Retry-After first; then equal jitter at random=0.5: 3/4 of 2s and of 4s.
    assert.deepEqual(sleeps, [7_000, 1_500, 3_000]);
    assert.equal(lines.filter((l) => l.msg === 'notification will be retried').length, 3);
    assert.equal(lines.filter((l) => l.msg === 'notification failed').length, 0);
  });

  it('does not retry a refusal (4xx) and logs it with the masked URL only', async () => {
    receiver.reply({ status: 403, body: 'invalid token' });
    const { notifier, sleeps, lines } = setup(['discord://sup3rs3cr3t@123456789012345678']);
    await notifier.notify(event);
    await notifier.flush();
    assert.equal(receiver.requests.length, 1);
    assert.deepEqual(sleeps, []);
    const failed = lines.find((l) => l.msg === 'notification failed');
    assert.ok(failed);
    assert.equal(failed.notify, 'discord://123456789012345678');
    assert.equal(failed.event, 'rebooting');
    assert.match(String(failed.error), /HTTP 403 invalid token/);
    assert.doesNotMatch(JSON.stringify(lines), /sup3rs3cr3t/);
  });

  it('gives up after the configured number of tries', async () => {
    receiver.reply({ status: 500 }, { status: 500 }, { status: 500 });
    const { notifier, sleeps, lines } = setup(['generic+https://a.example.com/x'], { attempts: 3 });
    await notifier.notify(event);
    await notifier.flush();
    assert.equal(receiver.requests.length, 3);
    assert.equal(sleeps.length, 2);
    assert.match(String(lines.find((l) => l.msg === 'notification failed')?.why), /after 3 tries/);
  });

  it('gives up when Retry-After is longer than allowed instead of waiting', async () => {
    receiver.reply({ status: 429, headers: { 'Retry-After': '3600' } });
    const { notifier, sleeps } = setup(['generic+https://a.example.com/x']);
    await notifier.notify(event);
    await notifier.flush();
    assert.equal(receiver.requests.length, 1);
    assert.deepEqual(sleeps, []);
  });

  it('retries only the Telegram chat that failed', async () => {
    receiver.reply(
      { status: 200, body: '{"ok":true}' },
      { status: 502 },
      { status: 200, body: '{"ok":true}' },
    );
    const { notifier } = setup(['telegram://1:abc@telegram?chats=111,222']);
    const results = await notifier.send({ text: 'hello' });
    await notifier.flush();
    // The two chats are sent concurrently, so either may be the one that met the 502.
    const chats = receiver.requests.map((r) => (JSON.parse(r.body) as { chat_id: string }).chat_id);
    const counts = ['111', '222'].map((chat) => chats.filter((c) => c === chat).length);
    assert.deepEqual(counts.sort(), [1, 2]);
    assert.ok(results.every((r) => r.ok));
    assert.deepEqual(results.map((r) => r.attempts).sort(), [1, 2]);
  });

  it('returns from notify before a stuck service answers, and flush(timeout) is bounded', async () => {
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const { log } = capturingLogger();
    const notifier = createNotifier({
      targets: parseNotifyUrls(['generic+https://a.example.com/x']),
      log,
      io: {
        fetch: async () => {
          await stuck;
          return new Response('', { status: 200 });
        },
      },
    });
    await notifier.notify(event);
    assert.equal(notifier.pending(), 1);
    await notifier.flush(5);
    assert.equal(notifier.pending(), 1);
    release();
    await notifier.flush();
    assert.equal(notifier.pending(), 0);
  });

  it('retries a network error (nothing listening)', async () => {
    const dead = await startHttpRecorder();
    const url = dead.url;
    await dead.close();
    const { log, lines } = capturingLogger();
    const sleeps: number[] = [];
    const notifier = createNotifier({
      targets: parseNotifyUrls(['generic+https://a.example.com/x']),
      log,
      io: { baseUrl: url },
      sleep: async (ms) => void sleeps.push(ms),
      retry: { attempts: 2 },
    });
    await notifier.notify(event);
    await notifier.flush();
    assert.equal(sleeps.length, 1);
    assert.match(String(lines.find((l) => l.msg === 'notification failed')?.error), /ECONNREFUSED/);
  });
});
