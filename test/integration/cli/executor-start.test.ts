/**
 * The executor's start (every Job's, on a node about to be drained) loads its own command alone:
 * not the config schema (building its zod schemas is a good part of the start's CPU), not the other commands,
 * the scheduler or the time library (issue 20, executor-program.ts). Its help is the whole program's
 * `executor`, so nobody can tell the two apart.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { DEFAULT_EXECUTOR_SETTINGS } from '../../../src/compose/executor-settings.js';
import { SETTINGS_ENV } from '../../../templates/executor-job.js';
import { MAIN } from '../../support/cli-process.js';

const RECORDER = fileURLToPath(new URL('../../support/record-modules.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('the executor starts with its own command alone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-executor-start-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the executor as a Job does (to a kubeconfig that is not there); the modules it loaded. */
  const loaded = (settings: string): { code: number | null; stderr: string; ours: string[] } => {
    const list = join(dir, `modules-${Math.random().toString(36).slice(2)}`);
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        RECORDER,
        '--import',
        import.meta.resolve('tsx'),
        MAIN,
        'executor',
        '--node',
        'node-1',
        '--request',
        'r-abc123',
        '--kubeconfig',
        join(dir, 'absent'),
      ],
      { env: { ...process.env, RECORD_MODULES: list, [SETTINGS_ENV]: settings }, encoding: 'utf8' },
    );
    const ours = [
      ...new Set(
        readFileSync(list, 'utf8')
          .split('\n')
          .filter((url) => url.startsWith('file://') && !url.includes('/node_modules/'))
          .map((url) => fileURLToPath(url).slice(ROOT.length)),
      ),
    ];
    return { code: run.status, stderr: run.stderr, ours };
  };

  it("loads no config schema and no other command with the control plane's whole settings", () => {
    const run = loaded(JSON.stringify(DEFAULT_EXECUTOR_SETTINGS));
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /cannot read kubeconfig/);
    assert.ok(run.ours.includes('src/cli/commands/executor.ts'), run.ours.join(' '));
    assert.ok(run.ours.includes('src/app/executor/run-executor.ts'), 'the executor itself loaded');
    const unneeded = run.ours.filter((f) =>
      /^src\/(config\/schema|cli\/commands\/(?!executor\.ts)|cli\/program\.ts|app\/control\/)/.test(
        f,
      ),
    );
    assert.deepEqual(unneeded, []);
  });

  it('loads the config schema for its defaults when the settings leave some out', () => {
    const run = loaded('{"hostPrefix":[]}');
    assert.equal(run.code, 2, run.stderr);
    assert.ok(run.ours.includes('src/config/schema.ts'), run.ours.join(' '));
  });

  it("shows the whole program's help for executor", () => {
    // A global flag before the command takes the whole program (main.ts looks at the first word).
    const help = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), MAIN, ...args], {
        encoding: 'utf8',
      }).stdout;
    const alone = help('executor', '--help');
    assert.match(alone, /Exit codes[^]*Examples:\n {2}kubemaint executor --node/);
    assert.equal(alone, help('--log-format', 'json', 'executor', '--help'));
  });
});
