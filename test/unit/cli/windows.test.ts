import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT } from '../../../src/core/exit-codes.js';
import { runCli } from '../../support/cli-process.js';

const CONFIG = `windows:
  - days: [mon, tue, wed, thu, fri]
    start: "02:00"
    end: "06:00"
    timezone: Europe/Berlin
freezes:
  - from: "2026-12-24"
    to: "2026-12-26"
    timezone: Europe/Berlin
    reason: holidays
`;

describe('kubemaint windows (child process, config only)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-windows-'));
  writeFileSync(join(dir, 'kubemaint.yaml'), CONFIG);
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('says when the window opens next, then lists windows and freezes', async () => {
    const run = await runCli(['windows', '--at', '2026-11-23T06:30:00Z'], { cwd: dir });
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.equal(
      run.stdout,
      'closed now; next opens Tue 2026-11-24 02:00 Europe/Berlin (in 18h30m)\n' +
        '  mon,tue,wed,thu,fri 02:00–06:00 Europe/Berlin\n' +
        '  freeze 2026-12-24 → 2026-12-26 Europe/Berlin: holidays\n',
    );
  });

  it('names a freeze in force and its reason', async () => {
    const run = await runCli(['windows', '--at', '2026-12-24T02:00+01:00'], { cwd: dir });
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stdout, /^frozen: holidays \(until Sun 2026-12-27 00:00 Europe\/Berlin/);
  });

  it('refuses a moment it cannot read, with an example (exit 2)', async () => {
    const run = await runCli(['windows', '--at', 'next tuesday'], { cwd: dir });
    assert.equal(run.code, EXIT.config);
    assert.match(run.stderr, /--at "next tuesday" is not a time\nhint: ISO 8601/);
    assert.equal(run.stdout, '');
  });

  it('judges the windows of the cluster --cluster names, and asks which when there are several', async () => {
    const several = mkdtempSync(join(tmpdir(), 'kubemaint-windows-clusters-'));
    try {
      writeFileSync(
        join(several, 'kubemaint.yaml'),
        `windows:
  - {days: [sat], start: "01:00", end: "05:00", timezone: UTC}
clusters:
  - name: staging
    kubeconfig: {context: staging}
  - name: production
    kubeconfig: {context: prod-eu}
    windows:
      - {days: [sun], start: "03:00", end: "04:00", timezone: UTC}
`,
      );
      const at = ['--at', '2026-11-23T06:30:00Z'];
      const production = await runCli(['windows', '--cluster', 'production', ...at], {
        cwd: several,
      });
      assert.equal(production.code, EXIT.ok, production.stderr);
      assert.match(production.stdout, /^closed now; next opens Sun 2026-11-29 03:00 UTC/);
      assert.match(production.stdout, /\n {2}sun 03:00–04:00 UTC\n$/);
      const staging = await runCli(['windows', '--cluster', 'staging', ...at], { cwd: several });
      assert.match(
        staging.stdout,
        /\n {2}sat 01:00–05:00 UTC\n$/,
        'staging has the top-level window',
      );
      const unnamed = await runCli(['windows', ...at], { cwd: several });
      assert.equal(unnamed.code, EXIT.config);
      assert.match(
        unnamed.stderr,
        /lists 2 clusters: say which with --cluster NAME\nhint: the clusters: staging, production/,
      );
    } finally {
      rmSync(several, { recursive: true, force: true });
    }
  });
});
