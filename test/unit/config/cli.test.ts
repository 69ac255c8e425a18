import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXIT } from '../../../src/core/exit-codes.js';

/** Runs `kubemaint` as a child process on this Node (24), the way `npx tsx src/cli/main.ts` does. */
function kubemaint(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('SLACK_') && k !== 'KUBEMAINT_CONFIG',
    ),
  );
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...clean, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('kubemaint config check (child process)', () => {
  it('prints ok and a summary for the example file', () => {
    const run = kubemaint(['config', 'check', 'kubemaint.example.yaml']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(
      run.stdout,
      /^ok: kubemaint\.example\.yaml is valid \(cluster sim \(demo, 6 nodes\), 2 windows, 1 freeze, concurrency 1, .*\)\n$/,
    );
    // The example names no approver: valid, but said, so a copied file does not wait forever.
    assert.match(run.stderr, /^warning: approval\.approvers lists nobody/);
  });
  it('prints every problem and exits 2 for a broken file', () => {
    const run = kubemaint(['config', 'check', 'test/fixtures/config/many-problems.yaml']);
    assert.equal(run.code, EXIT.config);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      /^error: test\/fixtures\/config\/many-problems\.yaml has 13 problems:\n/,
    );
    assert.match(
      run.stderr,
      /\n {2}lock\.concurrncy: unknown key — did you mean `concurrency`\?\n/,
    );
    assert.match(
      run.stderr,
      /\n {2}windows\[0\]\.start: "25:00" is not a time .* — use 24h "22:00" or "10pm"\n/,
    );
    assert.match(
      run.stderr,
      /\n {2}drain\.timeout: "15 minutes" is not a duration — use 15m, 1h30m, 90s\n/,
    );
  });
  it('reads lock: as slot: and says once to rename it (ADR 0016)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-config-'));
    const file = join(dir, 'kubemaint.yaml');
    writeFileSync(file, 'lock:\n  concurrency: 2\n');
    try {
      const run = kubemaint(['config', 'check', file]);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.match(run.stdout, /concurrency 2/);
      assert.match(
        run.stderr,
        /^warning: lock: is deprecated and read as slot: \(same keys\); rename it in the file\n/,
      );
      assert.equal(run.stderr.match(/deprecated/g)?.length, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('keeps `locks` as the old name of `slots`', () => {
    const run = kubemaint(['locks', '--help']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stdout, /^Usage: kubemaint slots\|locks /);
  });
  it('reports a YAML syntax error with its line and column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-config-'));
    const file = join(dir, 'kubemaint.yaml');
    writeFileSync(file, 'slot:\n  concurrency: 1\n ttl: 5m\n');
    try {
      const run = kubemaint(['config', 'check', file]);
      assert.equal(run.code, EXIT.config);
      assert.match(run.stderr, /has 1 problem:\n {2}line 3, column 1: .+ — YAML syntax/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('checks the file in KUBEMAINT_CONFIG and never echoes a bad token from the env', () => {
    const run = kubemaint(['config', 'check'], {
      KUBEMAINT_CONFIG: 'test/fixtures/config/valid-kubeconfig.yaml',
      SLACK_BOT_TOKEN: 'not-a-real-token-value',
      SLACK_APP_TOKEN: 'xapp-1-abc',
    });
    assert.equal(run.code, EXIT.config);
    assert.match(run.stderr, /\$SLACK_BOT_TOKEN: is set but does not look like a bot token/);
    assert.ok(!run.stderr.includes('not-a-real-token-value'), run.stderr);
  });
  it('print-defaults prints YAML with the defaults', () => {
    const run = kubemaint(['config', 'print-defaults']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stdout, /^cluster:\n {2}type: sim\n/);
    assert.match(run.stdout, /\n {2}concurrency: 1\n/);
  });
});
