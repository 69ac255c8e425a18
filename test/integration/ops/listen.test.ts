/**
 * Where the real `kubemaint serve` listens (issue 15): by default /metrics and the Slack receiver
 * answer on 127.0.0.1 only; an address from the config is the one bound (127.0.0.2, another loopback
 * address, proves it: 127.0.0.1 then refuses); in a pod (KUBERNETES_SERVICE_HOST) both listen on
 * every interface and the ready line says so; a bad address is a config or usage error (exit 2).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, startCli, type LongRunning } from '../../support/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'kubemaint-listen-'));
const running: LongRunning[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

const SLACK = {
  SLACK_BOT_TOKEN: 'xoxb-listen-test',
  SLACK_SIGNING_SECRET: 'fe0c2b1d5a7e4f3b9c8d6e5f4a3b2c1d',
  // Nothing answers here: prompts fail and are logged; the receiver is what this test is about.
  SLACK_API_URL: 'http://127.0.0.1:9/api/',
  PORT: '0',
  KUBEMAINT_LOG_LEVEL: 'silent',
};

function configFile(name: string, serve: string): string {
  const path = join(dir, name);
  writeFileSync(path, `slack:\n  channel: C0MAINT\n  allowedChannels: [C0MAINT]\nserve:\n${serve}`);
  return path;
}

async function serve(config: string, env: NodeJS.ProcessEnv = {}) {
  // A folder each: these serves run at once, and each starts the demo's cluster, which keeps its
  // state in its folder (.kubemaint/sim-state) and refuses a second sim there.
  const process = startCli(['serve', '--config', config, '--ops-port', '0'], {
    cwd: mkdtempSync(join(dir, 'serve-')),
    env: { ...SLACK, ...env },
  });
  running.push(process);
  const [line] = await process.waitFor(/kubemaint serve ready: .*\n/, 90_000);
  const ops = /ops=http:\/\/([^:]+):(\d+)/.exec(line)!;
  const slack = /slack=http:\/\/([^\s/]+):(\d+)\/slack\/events/.exec(line)!;
  return {
    process,
    line,
    opsPort: Number(ops[2]),
    slackHost: slack[1],
    slackPort: Number(slack[2]),
  };
}

const answers = async (url: string): Promise<number | string> => {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5_000) })).status;
  } catch (error) {
    return String((error as { cause?: { code?: string } }).cause?.code ?? error);
  }
};

describe('serve listen addresses', { timeout: 300_000, concurrency: true }, () => {
  it('by default, /metrics and the Slack receiver are on 127.0.0.1 only', async () => {
    const s = await serve(configFile('default.yaml', '  ops: {}\n'));
    assert.match(s.line, /ops=http:\/\/127\.0\.0\.1:\d+ /);
    assert.doesNotMatch(s.line, /all interfaces/);
    assert.equal(s.slackHost, '127.0.0.1');
    assert.equal(await answers(`http://127.0.0.1:${s.opsPort}/metrics`), 200);
    assert.equal(await answers(`http://127.0.0.2:${s.opsPort}/metrics`), 'ECONNREFUSED');
    assert.equal(await answers(`http://127.0.0.2:${s.slackPort}/slack/events`), 'ECONNREFUSED');
    await s.process.stop();
  });

  it('an address from the config is the one bound', async () => {
    const s = await serve(
      configFile('given.yaml', '  ops:\n    host: 127.0.0.2\n  slack:\n    host: 127.0.0.2\n'),
    );
    assert.match(s.line, /ops=http:\/\/127\.0\.0\.2:\d+/);
    assert.equal(await answers(`http://127.0.0.2:${s.opsPort}/healthz`), 200);
    assert.equal(await answers(`http://127.0.0.1:${s.opsPort}/healthz`), 'ECONNREFUSED');
    // Bolt answers a GET on its endpoint with 404: it answered, on that address only.
    assert.equal(await answers(`http://127.0.0.2:${s.slackPort}/slack/events`), 404);
    assert.equal(await answers(`http://127.0.0.1:${s.slackPort}/slack/events`), 'ECONNREFUSED');
    await s.process.stop();
  });

  it('in a pod both listen on every interface, and the ready line says so', async () => {
    const s = await serve(configFile('pod.yaml', '  ops: {}\n'), {
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
    });
    assert.match(s.line, /ops=http:\/\/127\.0\.0\.1:\d+ \(all interfaces\)/);
    assert.match(s.line, /slack=http:\/\/0\.0\.0\.0:\d+\/slack\/events \(all interfaces\)/);
    assert.equal(await answers(`http://127.0.0.2:${s.opsPort}/healthz`), 200);
    await s.process.stop();
  });

  const refused: [string, string[], string, RegExp][] = [
    [
      'a flag that is no address',
      ['--ops-host', 'metrics.local'],
      '  ops: {}\n',
      /--ops-host "metrics\.local" is not an address to listen on/,
    ],
    [
      'a config host that is no address',
      [],
      '  slack:\n    host: "[::1]"\n',
      /serve\.slack\.host: "\[::1\]" is not an address to listen on/,
    ],
    [
      'an address of another machine',
      ['--ops-host', '192.0.2.1'],
      '  ops: {}\n',
      /ops server cannot listen on 192\.0\.2\.1:\d+: EADDRNOTAVAIL[\s\S]*not one of this machine/,
    ],
  ];
  for (const [what, flags, serveBlock, message] of refused) {
    it(`${what}: exit 2 with a hint`, async () => {
      const config = configFile(`bad-${what.replace(/\W+/g, '-')}.yaml`, serveBlock);
      const result = await runCli(['serve', '--config', config, ...flags], {
        cwd: dir,
        env: SLACK,
      });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.match(result.stderr, /hint: /);
    });
  }
});
