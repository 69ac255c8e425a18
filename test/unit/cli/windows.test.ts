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
});
