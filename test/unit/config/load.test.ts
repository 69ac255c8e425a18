import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigInvalidError, configPath, loadConfig } from '../../../src/config/load.js';
import { KubemaintError, exitCodeOf } from '../../../src/errors.js';
import { EXIT } from '../../../src/core/exit-codes.js';

/** A fake file system: path → text; anything else is ENOENT. */
function files(map: Record<string, string>) {
  const reads: string[] = [];
  const readFile = (path: string): string => {
    reads.push(path);
    const text = map[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  };
  return { readFile, reads };
}

describe('configPath', () => {
  const cases: { path?: string; env: Record<string, string>; want: string | undefined }[] = [
    { path: 'a.yaml', env: { KUBEMAINT_CONFIG: 'b.yaml' }, want: 'a.yaml' },
    { env: { KUBEMAINT_CONFIG: 'b.yaml' }, want: 'b.yaml' },
    { env: { KUBEMAINT_CONFIG: '  ' }, want: undefined },
    { env: {}, want: undefined },
  ];
  for (const c of cases) {
    it(`--config ${String(c.path)}, env ${JSON.stringify(c.env)} → ${String(c.want)}`, () =>
      assert.equal(configPath({ path: c.path, env: c.env }), c.want));
  }
});

describe('loadConfig', () => {
  it('uses the embedded demo config without a file, reading nothing', () => {
    const fs = files({});
    const config = loadConfig({ env: {}, readFile: fs.readFile });
    assert.equal(config.cluster.type, 'sim');
    assert.deepEqual(fs.reads, []);
  });
  it('reads the file named by KUBEMAINT_CONFIG', () => {
    const fs = files({ '/etc/kubemaint.yaml': 'slot:\n  concurrency: 4\n' });
    const config = loadConfig({
      env: { KUBEMAINT_CONFIG: '/etc/kubemaint.yaml' },
      readFile: fs.readFile,
    });
    assert.equal(config.slot.concurrency, 4);
    assert.deepEqual(fs.reads, ['/etc/kubemaint.yaml']);
  });
  it('throws config_invalid (exit 2) listing every problem', () => {
    const fs = files({ 'k.yaml': 'slot:\n  concurrncy: 3\ndrain:\n  timeout: 15 minutes\n' });
    assert.throws(
      () => loadConfig({ path: 'k.yaml', env: {}, readFile: fs.readFile }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigInvalidError);
        assert.equal(error.code, 'config_invalid');
        assert.equal(exitCodeOf(error), EXIT.config);
        assert.deepEqual(
          error.problems.map((p) => p.path),
          ['slot.concurrncy', 'drain.timeout'],
        );
        assert.equal(
          error.message,
          [
            'k.yaml has 2 problems:',
            '  slot.concurrncy: unknown key — did you mean `concurrency`?',
            '  drain.timeout: "15 minutes" is not a duration — use 15m, 1h30m, 90s',
          ].join('\n'),
        );
        return true;
      },
    );
  });
  it('says clearly when the file is missing', () => {
    assert.throws(
      () => loadConfig({ path: 'nope.yaml', env: {}, readFile: files({}).readFile }),
      (error: unknown) =>
        error instanceof KubemaintError &&
        error.code === 'config_invalid' &&
        error.message === 'cannot read the config file nope.yaml: no such file' &&
        /KUBEMAINT_CONFIG/.test(error.hint ?? ''),
    );
  });
  it('reads a real file from disk by default', () => {
    const config = loadConfig({ path: 'kubemaint.example.yaml', env: {} });
    assert.equal(config.windows.length, 2);
  });
  it('expands ~/ in the kubeconfig path with HOME', () => {
    const fs = files({
      'k.yaml': 'cluster:\n  type: kubeconfig\n  kubeconfig:\n    path: ~/.kube/prod\n',
    });
    const config = loadConfig({
      path: 'k.yaml',
      env: { HOME: '/home/alice/' },
      readFile: fs.readFile,
    });
    assert.equal(
      config.cluster.type === 'kubeconfig' && config.cluster.kubeconfig.path,
      '/home/alice/.kube/prod',
    );
  });
  it('takes the Slack secrets from env, and reports a half setup', () => {
    const ok = loadConfig({
      env: {
        SLACK_BOT_TOKEN: 'xoxb-1-2-x',
        SLACK_APP_TOKEN: 'xapp-1-2-x',
        KUBEMAINT_CONFIG: 'k.yaml',
      },
      readFile: files({
        'k.yaml': 'slack:\n  channel: C0123ABCD\n  allowedChannels: [C0123ABCD]\n',
      }).readFile,
    });
    assert.equal(ok.secrets.appToken?.reveal(), 'xapp-1-2-x');
    assert.throws(
      () => loadConfig({ env: { SLACK_BOT_TOKEN: 'xoxb-1-2-x' } }),
      (error: unknown) =>
        error instanceof ConfigInvalidError &&
        error.problems.some((p) => p.path === '$SLACK_BOT_TOKEN') &&
        !error.message.includes('xoxb-1-2-x'),
    );
  });
});
