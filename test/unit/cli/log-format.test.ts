/**
 * `log.format: text` / `--log-format text` / `KUBEMAINT_LOG_FORMAT=text`: the same events as the
 * JSON lines, for people. The flag wins over the environment, the environment over the config; a
 * value that is neither format is refused before anything starts (exit 2).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { logFormatOf } from '../../../src/config/log-format.js';
import { parseConfig } from '../../../src/config/parse.js';
import { EXIT } from '../../../src/core/exit-codes.js';
import { KubemaintError } from '../../../src/errors.js';
import { textLine } from '../../../src/log-text.js';
import { runCli } from '../../support/cli-process.js';

describe('textLine', () => {
  it('writes time, level, who and message, then the fields', () => {
    const json = JSON.stringify({
      level: 40,
      time: '2026-05-02T10:00:00.000Z',
      service: 'serve',
      component: 'watch',
      node: 'node-1',
      reason: 'drain stalled 10 min',
      count: 3,
      msg: 'watch restarted',
    });
    assert.equal(
      textLine(json),
      '2026-05-02T10:00:00.000Z WARN  serve/watch: watch restarted node=node-1 reason="drain stalled 10 min" count=3\n',
    );
  });
  it('puts an error message in the line and its stack below it', () => {
    const json = JSON.stringify({
      level: 50,
      time: '2026-05-02T10:00:00.000Z',
      service: 'executor',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at run (x.ts:1:2)' },
      msg: 'failed',
    });
    assert.equal(
      textLine(json),
      '2026-05-02T10:00:00.000Z ERROR executor: failed err=boom\n    at run (x.ts:1:2)\n',
    );
  });
  it('shows escape sequences from the cluster instead of sending them to the terminal', () => {
    const line = textLine(
      JSON.stringify({
        level: 30,
        time: 't',
        service: 's',
        node: 'a\u001b]0;x\u0007',
        msg: 'm\u001b[2J',
      }),
    );
    // eslint-disable-next-line no-control-regex -- the point: no control character but the newline
    assert.ok(!/[\u0000-\u0009\u000b-\u001f]/.test(line), line);
    assert.match(line, /m\\u001b\[2J node="a\\u001b\]0;x\\u0007"/);
  });
  it('passes a line that is not JSON unchanged', () =>
    assert.equal(textLine('plain\n'), 'plain\n'));
});

describe('which format: flag, then environment, then config', () => {
  const text = parseConfig('log:\n  format: text\n', 'k.yaml');
  assert.ok(text.ok);
  const config = text.config;
  it('defaults to json', () => assert.equal(logFormatOf({ env: {} }), 'json'));
  it('takes the config', () => assert.equal(logFormatOf({ env: {}, config }), 'text'));
  it('lets the environment win over the config', () =>
    assert.equal(logFormatOf({ env: { KUBEMAINT_LOG_FORMAT: 'json' }, config }), 'json'));
  it('lets the flag win over both', () =>
    assert.equal(
      logFormatOf({ flag: 'json', env: { KUBEMAINT_LOG_FORMAT: 'text' }, config }),
      'json',
    ));
  it('refuses an environment value that is no format, naming the variable', () =>
    assert.throws(
      () => logFormatOf({ env: { KUBEMAINT_LOG_FORMAT: 'yaml' } }),
      (error: unknown) =>
        error instanceof KubemaintError &&
        /KUBEMAINT_LOG_FORMAT "yaml" is not a log format/.test(error.message) &&
        /json or text/.test(error.hint ?? ''),
    ));
  it('refuses log.format that is no format in the config', () => {
    const bad = parseConfig('log:\n  format: pretty\n', 'k.yaml');
    assert.ok(!bad.ok);
    assert.equal(bad.problems[0]?.path, 'log.format');
  });
});

describe('the CLI (child process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-log-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // serve logs the config's warnings first, then fails on a port that is taken: enough to see lines.
  const config = join(dir, 'kubemaint.yaml');
  writeFileSync(
    config,
    'cluster:\n  type: kubeconfig\n  kubeconfig:\n    path: /nonexistent\nlog:\n  format: text\n',
  );
  const busyPort = async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(() => server.close());
    return (server.address() as AddressInfo).port;
  };

  it('serve logs text when the config says so', async () => {
    const port = await busyPort();
    const run = await runCli(['serve', '--config', config, '--ops-port', String(port)], {
      cwd: dir,
    });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /^\S+Z WARN {2}serve: approval\.approvers lists nobody/m);
    assert.ok(!run.stderr.includes('"level":'), run.stderr);
  });
  it('--log-format json wins over the config', async () => {
    const port = await busyPort();
    const run = await runCli(
      ['serve', '--config', config, '--ops-port', String(port), '--log-format', 'json'],
      { cwd: dir },
    );
    assert.match(run.stderr, /^\{"level":40,.*"msg":"approval\.approvers lists nobody/m);
  });
  it('refuses a --log-format that is no format with exit 2', async () => {
    const run = await runCli(['--log-format', 'yaml', 'status'], { cwd: dir });
    assert.equal(run.code, EXIT.config);
    assert.match(run.stderr, /--log-format "yaml" is not a log format\nhint: use json or text/);
  });
});
