import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

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

describe('kubemaint sim (child process)', { concurrency: true }, () => {
  it('prints exactly the ready line, serves, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-cli-'));
    const kubeconfig = join(dir, 'sim.kubeconfig');
    const cli = runCli(['sim', '--scenario', 'fleet', '--nodes', '3', '--kubeconfig', kubeconfig]);
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

  it('explains the scenarios in --help', async () => {
    const cli = runCli(['sim', '--help']);
    assert.equal(await cli.exited, 0);
    for (const name of ['demo', 'fleet', 'empty', '--nodes', '--kubeconfig', '--scale']) {
      assert.ok(cli.out().includes(name), `--help mentions ${name}`);
    }
  });
});
