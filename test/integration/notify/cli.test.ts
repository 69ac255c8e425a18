/**
 * `kubemaint notify`: in-process through `runNotify` (fast), plus one real child process to prove the
 * command is wired into the CLI and maps an unusable URL to exit code 2 with its secret masked.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runNotify, type NotifyOptions } from '../../../src/cli/commands/notify.js';
import { KubemaintError } from '../../../src/errors.js';
import { startHttpRecorder, type HttpRecorder } from '../../support/http-recorder.js';

function capture() {
  const lines = { out: '', err: '' };
  return {
    lines,
    out: { write: (s: string) => ((lines.out += s), true) },
    err: { write: (s: string) => ((lines.err += s), true) },
  };
}

describe('kubemaint notify', () => {
  let receiver: HttpRecorder;
  let host: string;
  before(async () => {
    receiver = await startHttpRecorder();
    host = new URL(receiver.url).host;
  });
  after(() => receiver.close());

  async function notify(text: string | undefined, options: Partial<NotifyOptions>) {
    receiver.requests.length = 0;
    const io = capture();
    const code = await runNotify(text, { node: 'node-1', ...options }, io.out, io.err);
    return { code, ...io.lines };
  }

  it('renders the text as the template of --event and sends it', async () => {
    const result = await notify('{{node}} back after {{duration}} (kured: %s)', {
      url: [`generic://${host}/hook?disabletls=yes&template=json`],
      event: 'back',
      node: 'worker-7',
      cluster: 'prod',
    });
    assert.equal(result.code, 0, result.err);
    assert.equal(result.out, `sent: generic://${host}\n`);
    assert.deepEqual(JSON.parse(receiver.requests[0]!.body), {
      title: '[kubemaint] prod: worker-7 back',
      message: 'worker-7 back after 4m32s (kured: worker-7)',
    });
  });

  it("uses the event's default template when no text is given", async () => {
    const result = await notify(undefined, {
      url: [`generic://${host}/hook?disabletls=yes`],
      event: 'upgrading',
      cluster: 'prod',
    });
    assert.equal(result.code, 0, result.err);
    assert.equal(
      receiver.requests[0]!.body,
      'Upgrading the kubelet on node node-1 in prod to v1.31.4',
    );
  });

  it('sends plain text to every --url', async () => {
    const result = await notify('hello', {
      url: [`generic://${host}/a?disabletls=yes`, `mattermost://${host}/tok?disabletls=yes`],
    });
    assert.equal(result.code, 0, result.err);
    assert.deepEqual(receiver.requests.map((r) => r.path).sort(), ['/a', '/hooks/tok']);
    assert.equal(receiver.requests.find((r) => r.path === '/a')!.body, 'hello');
  });

  it('returns 1 and prints the masked reason when the service refuses', async () => {
    receiver.reply({ status: 404, body: 'no such hook' });
    const result = await notify('hello', {
      url: [`ntfy://:tk_s3cr3t@${host}/topic?scheme=http`],
    });
    assert.equal(result.code, 1);
    assert.equal(result.out, '');
    assert.equal(result.err, `failed: ntfy://${host}: HTTP 404 no such hook\n`);
  });

  it('takes URLs and templates from the config file when no --url is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-notify-'));
    const file = join(dir, 'kubemaint.yaml');
    writeFileSync(
      file,
      [
        'notify:',
        `  urls: ["generic://${host}/from-config?disabletls=yes"]`,
        '  templates:',
        '    draining: "cordoned {{node}}, draining"',
        '',
      ].join('\n'),
    );
    const result = await notify(undefined, { config: file, event: 'draining' });
    assert.equal(result.code, 0, result.err);
    assert.equal(receiver.requests[0]?.path, '/from-config');
    assert.equal(receiver.requests[0]?.body, 'cordoned node-1, draining');
  });

  it('refuses an unknown event as a usage error', async () => {
    await assert.rejects(
      notify(undefined, { url: ['ntfy://ntfy.sh/t'], event: 'rebooted' }),
      (error: unknown) =>
        error instanceof KubemaintError &&
        error.code === 'usage' &&
        error.message === '--event rebooted is not an event',
    );
  });

  it('exits 2 from the real CLI for an unusable URL, without its secret', async () => {
    const run = promisify(execFile);
    const failed = await run(process.execPath, [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'notify',
      '--url',
      'telegram://123:s3cr3t@telegram',
      'hi',
    ]).then(
      () => assert.fail('expected a non-zero exit'),
      (error: unknown) => error as { code: number; stderr: string },
    );
    assert.equal(failed.code, 2);
    assert.match(
      failed.stderr,
      /notify\.urls\[0\]: notify URL telegram:\/\/telegram: chats=… is required/,
    );
    assert.doesNotMatch(failed.stderr, /s3cr3t/);
  });
});
