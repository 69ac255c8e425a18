import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

const MAIN = join(import.meta.dirname, '../../../src/cli/main.ts');

function runCli(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

/** Waits for the ready line (a sim starts in a few seconds; a loaded machine takes longer). */
async function ready(cli: ReturnType<typeof runCli>): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!cli.out().includes('ready') && Date.now() < deadline) {
    if (cli.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(cli.out(), /kubemaint sim ready/, cli.err());
}

describe('kubemaint sim (child process)', { concurrency: true }, () => {
  it('prints exactly the ready line, serves, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-cli-'));
    const kubeconfig = join(dir, 'sim.kubeconfig');
    const cli = runCli([
      'sim',
      '--scenario',
      'fleet',
      '--nodes',
      '3',
      '--kubeconfig',
      kubeconfig,
      '--no-state',
    ]);
    try {
      const deadline = Date.now() + 60_000;
      while (!cli.out().includes('\n') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(cli.out(), `kubemaint sim ready: kubeconfig=${kubeconfig}\n`);
      assert.ok(existsSync(kubeconfig));
      assert.match(readFileSync(kubeconfig, 'utf8'), /certificate-authority-data/);
      cli.child.kill('SIGTERM');
      assert.equal(await cli.exited, 0, cli.err());
      assert.equal(cli.out().split('\n').filter(Boolean).length, 1, 'one line on stdout');
    } finally {
      cli.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown scenario with a hint and a config exit code', async () => {
    const cli = runCli([
      'sim',
      '--scenario',
      'moon',
      '--kubeconfig',
      join(tmpdir(), 'never.kubeconfig'),
    ]);
    const code = await cli.exited;
    assert.equal(cli.out(), '');
    assert.match(cli.err(), /unknown scenario "moon"/);
    assert.match(cli.err(), /demo, fleet, empty/);
    assert.notEqual(code, 0);
  });

  it('keeps the cluster in --state across a crash, with the --nodes the demo was seeded with', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-state-'));
    const kubeconfig = join(dir, 'sim.kubeconfig');
    const state = join(dir, 'state');
    const args = ['sim', '--kubeconfig', kubeconfig, '--state', state];
    let cli = runCli([...args, '--nodes', '4']);
    try {
      await ready(cli);
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const core = kc.makeApiClient(CoreV1Api);
      assert.deepEqual(
        (await core.listNode()).items.map((n) => n.metadata?.name),
        ['node-1', 'node-2', 'node-3', 'node-4'],
      );
      const made = await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'survivor' }, data: { a: '1' } },
      });
      cli.child.kill('SIGKILL');
      await cli.exited;
      cli = runCli(args);
      await ready(cli);
      // The client made before the crash: same CA, token and port.
      const kept = await core.readNamespacedConfigMap({ name: 'survivor', namespace: 'default' });
      assert.equal(kept.metadata?.uid, made.metadata?.uid);
      assert.equal(kept.metadata?.resourceVersion, made.metadata?.resourceVersion);
      assert.equal((await core.listNode()).items.length, 4);
      cli.child.kill('SIGTERM');
      assert.equal(await cli.exited, 0, cli.err());
      // Asked for another cluster by name, the saved one is not quietly replaced.
      const other = runCli([...args, '--scenario', 'fleet']);
      assert.notEqual(await other.exited, 0);
      assert.match(
        other.err(),
        /holds a cluster seeded as demo with 4 nodes, not fleet with 4 nodes/,
      );
      assert.match(other.err(), new RegExp(`mv ${state} ${state}\\.old`));
    } finally {
      cli.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a --nodes the scenario cannot take, saying why', async () => {
    for (const [extra, says] of [
      [['--nodes', '0'], /--nodes 0 is not a whole number from 1 to 5000/],
      [['--nodes', 'many'], /--nodes "many" is not a whole number/],
      [['--nodes', '5001', '--scenario', 'fleet'], /from 1 to 5000/],
      [['--nodes', '3', '--scenario', 'empty'], /the empty scenario seeds no nodes/],
    ] as const) {
      const cli = runCli([
        'sim',
        '--no-state',
        '--kubeconfig',
        join(tmpdir(), 'never.kubeconfig'),
        ...extra,
      ]);
      const code = await cli.exited;
      assert.equal(cli.out(), '');
      assert.match(cli.err(), says);
      assert.notEqual(code, 0);
    }
  });

  it('explains the scenarios in --help', async () => {
    const cli = runCli(['sim', '--help']);
    assert.equal(await cli.exited, 0);
    for (const name of [
      'demo',
      'fleet',
      'empty',
      '--nodes',
      '--kubeconfig',
      '--scale',
      '--state',
      '--reboot-downtime',
      // A simulated node's host commands, and what is not stopped (ADR 0036).
      'KUBEMAINT_SIM_HOST_URL',
      'cluster: {type: kubeconfig',
      'nsenter … -- sh',
      'by absolute path',
    ]) {
      assert.ok(cli.out().includes(name), `--help mentions ${name}`);
    }
  });
});
