import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { SimError } from '../../src/errors.js';
import { startHostAdmin, type HostAdmin } from '../../src/admin-host.js';
import {
  REBOOT_INHIBITED,
  RebootInhibited,
  type Host,
  type HostAction,
  type Inhibitor,
} from '../../src/host.js';
import { main } from '../../src/host-cli.mjs';
import { SIM_BIN_DIR } from '../../src/jobs-runner.js';

/** A host that records what it was asked, standing in for the sim's nodes. */
function recordingHost(): Host & { calls: string[] } {
  const calls: string[] = [];
  let lock: Inhibitor | undefined;
  const action = (node: string, kind: HostAction['action'], version?: string): HostAction => {
    if (node !== 'node-1') throw new SimError('not_found', `no simulated host for node "${node}"`);
    calls.push(`${node}:${kind}${version ? `:${version}` : ''}`);
    return {
      node,
      action: kind,
      issuedAt: 'now',
      takesEffectAt: 'soon',
      duplicate: false,
      ...(version ? { version } : {}),
    };
  };
  return {
    calls,
    reboot(node) {
      if (lock) throw new RebootInhibited(node, lock);
      return action(node, 'reboot');
    },
    inhibit(_node, held) {
      lock = held;
      return () => (lock = undefined);
    },
    upgrade(node, version) {
      if (!version.startsWith('v'))
        throw new SimError('usage', `invalid kubelet version "${version}"`);
      return action(node, 'upgrade', version);
    },
    status: (node) => ({ node, up: true, bootID: 'b-1', kubeletVersion: 'v1.31.4' }),
    log: () => [],
    stop: () => undefined,
  };
}

describe('kubemaint-sim-host against the host endpoint', () => {
  const host = recordingHost();
  let admin: HostAdmin;
  before(async () => {
    admin = await startHostAdmin(host);
  });
  after(async () => admin.close());

  const cli = async (argv: string[], env: Record<string, string | undefined>) => {
    let stdout = '';
    let stderr = '';
    const code = await main(argv, env, {
      stdout: (s) => (stdout += s),
      stderr: (s) => (stderr += s),
    });
    return { code, stdout, stderr };
  };
  const env = () => ({ KUBEMAINT_SIM_HOST_URL: admin.url, NODE_NAME: 'node-1' });

  it('reboots its own node and returns at once', async () => {
    const result = await cli(['reboot'], env());
    assert.equal(result.code, 0);
    assert.equal(JSON.parse(result.stdout).action, 'reboot');
    assert.deepEqual(host.calls.splice(0), ['node-1:reboot']);
  });

  it('upgrades to a version and reads status', async () => {
    assert.equal((await cli(['upgrade', 'v1.32.1'], env())).code, 0);
    assert.deepEqual(host.calls.splice(0), ['node-1:upgrade:v1.32.1']);
    const status = await cli(['status'], env());
    assert.equal(JSON.parse(status.stdout).bootID, 'b-1');
  });

  it("says logind's refusal as systemctl says it when a block inhibitor is held (exit 1)", async () => {
    const release = host.inhibit('node-1', {
      who: 'backup.sh',
      why: 'nightly backup',
      what: 'shutdown',
      mode: 'block',
    });
    const shimmed = await cli(
      ['--as', 'nsenter', '-m/proc/1/ns/mnt', '--', 'systemctl', 'reboot'],
      env(),
    );
    assert.equal(shimmed.code, 1);
    assert.equal(shimmed.stderr, `${REBOOT_INHIBITED}\n`);
    const direct = await cli(['reboot'], env());
    assert.equal(direct.code, 1);
    assert.match(
      direct.stderr,
      /reboot on node-1 failed \(409\): Failed to reboot system via logind/,
    );
    release();
    assert.deepEqual(host.calls.splice(0), []);
  });

  it('answers a shim (--as NAME) with the simulated host, or refuses it with exit 126', async () => {
    const reboot = await cli(
      ['--as', 'nsenter', '-m/proc/1/ns/mnt', '--', 'systemctl', 'reboot'],
      env(),
    );
    assert.equal(reboot.code, 0, reboot.stderr);
    assert.deepEqual(host.calls.splice(0), ['node-1:reboot']);
    const upgrade = await cli(
      ['--as', 'nsenter', '--', 'kubemaint-sim-host', 'upgrade', 'v1.32.1'],
      env(),
    );
    assert.equal(upgrade.code, 0, upgrade.stderr);
    assert.deepEqual(host.calls.splice(0), ['node-1:upgrade:v1.32.1']);
    const off = await cli(['--as', 'nsenter', '-m/proc/1/ns/mnt', '--', 'sh', '-c', 'true'], env());
    assert.equal(off.code, 126);
    assert.match(off.stderr, /^nsenter \(simulated node node-1\): refused: .*would run "sh"/);
    assert.deepEqual(host.calls, []);
  });

  const failures: [string, string[], Record<string, string | undefined>, number, RegExp][] = [
    [
      'no endpoint in the env',
      ['reboot'],
      { KUBEMAINT_SIM_HOST_URL: undefined },
      2,
      /KUBEMAINT_SIM_HOST_URL is not set/,
    ],
    ['no node in the env', ['reboot'], { NODE_NAME: undefined }, 2, /NODE_NAME is not set/],
    ['an unknown command', ['halt'], {}, 2, /unknown command "halt"/],
    ['upgrade without a version', ['upgrade'], {}, 2, /upgrade needs a version/],
  ];
  for (const [why, argv, extra, code, message] of failures) {
    it(`explains ${why}`, async () => {
      const result = await cli(argv, { ...env(), ...extra });
      assert.equal(result.code, code);
      assert.match(result.stderr, message);
    });
  }

  it('reports an unknown node and a bad version with the host’s message', async () => {
    const missing = await cli(['reboot'], { ...env(), NODE_NAME: 'ghost' });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /\(404\).*no simulated host for node "ghost"/);
    const bad = await cli(['upgrade', '1.31'], env());
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /\(400\).*invalid kubelet version/);
  });

  it('says when the endpoint cannot be reached', async () => {
    const result = await cli(['reboot'], {
      ...env(),
      KUBEMAINT_SIM_HOST_URL: 'http://127.0.0.1:9',
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot reach the sim host endpoint/);
  });

  it('refuses an endpoint that is not plain http, naming the protocol', async () => {
    const result = await cli(['reboot'], {
      ...env(),
      KUBEMAINT_SIM_HOST_URL: 'https://127.0.0.1:9',
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Protocol "https:" not supported/);
  });

  // It stands for a small native command and runs once per simulated reboot, side by side with the
  // executors of a fleet roll: it stays plain JavaScript on built-ins (tsx, type stripping or `fetch`
  // made its start several times a bare node's).
  it('runs as its own process on built-ins alone: no TypeScript loader, no undici', async () => {
    const report =
      "import { registerHooks } from 'node:module'; const seen = [];" +
      'registerHooks({ resolve(s, c, next) { const r = next(s, c); seen.push(r.url); return r; } });' +
      "process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify({ seen," +
      " undici: process.moduleLoadList.some((m) => m.includes('deps/undici')) }) + '\\n'));";
    // Not spawnSync: the host endpoint answering it runs in this process.
    const run = await promisify(execFile)(
      process.execPath,
      [join(SIM_BIN_DIR, 'kubemaint-sim-host'), 'status'],
      {
        env: {
          PATH: process.env['PATH'],
          ...env(),
          NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(report)}`,
        },
        encoding: 'utf8',
      },
    );
    assert.equal(JSON.parse(run.stdout).bootID, 'b-1');
    const loaded = JSON.parse(/LOADED (.*)/.exec(run.stderr)?.[1] ?? '{}') as {
      seen: string[];
      undici: boolean;
    };
    const ours = loaded.seen.filter((url) => !url.startsWith('node:'));
    assert.deepEqual(
      ours.map((url) => url.replace(/^.*\/(bin|src)\//, '$1/')),
      ['bin/kubemaint-sim-host', 'src/host-cli.mjs', 'src/host-shim.mjs'],
    );
    assert.equal(loaded.undici, false, "Node's internal undici was loaded");
  });
});
