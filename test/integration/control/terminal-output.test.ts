/**
 * Terminal output through the real CLI (issue 15): a node whose packages annotation (the agent's,
 * so anyone who can write the node) carries `\x1b]0;pwned\x07` and `\x1b[2J`, and a slot whose
 * holder does; `scan`, `tick`, `status`, `status --json`, `slots` and an error that quotes what was
 * typed print every control character visibly, and `--json` still reads back the same text.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ANN_REBOOT_REQUIRED_PACKAGES, LABEL_REBOOT_REQUIRED } from '../../../src/core/names.js';
import { R } from '@kubemaint/kubesim';
import { runCli } from '../../support/cli-process.js';
import { HOSTILE_TERMINAL_TEXT, PWNED, TERMINAL_CONTROL } from '../../support/terminal.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

describe('the CLI prints control characters from the cluster visibly', { timeout: 120_000 }, () => {
  let sim: TestSim;
  let dir: string;
  const cli = async (...args: string[]) => {
    const result = await runCli([...args, '--config', join(dir, 'kubemaint.yaml')], { cwd: dir });
    for (const [stream, text] of [
      ['stdout', result.stdout],
      ['stderr', result.stderr],
    ] as const)
      assert.doesNotMatch(text, TERMINAL_CONTROL, `${args.join(' ')}: ${stream}: ${text}`);
    return result;
  };

  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-terminal-'));
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      `cluster:\n  type: kubeconfig\n  kubeconfig:\n    path: ${sim.kubeconfigPath}\n`,
    );
    sim.store.mutate(R.nodes, undefined, 'node-1', (n) => {
      n.metadata.labels = { ...n.metadata.labels, [LABEL_REBOOT_REQUIRED]: 'true' };
      n.metadata.annotations = {
        ...n.metadata.annotations,
        [ANN_REBOOT_REQUIRED_PACKAGES]: HOSTILE_TERMINAL_TEXT,
      };
    });
    sim.store.create(R.leases, {
      metadata: { name: 'kubemaint-slot-0', namespace: 'kubemaint' },
      spec: { holderIdentity: PWNED },
    });
  });
  after(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('scan, tick and status show the escape sequences of a reason', async () => {
    const scan = await cli('scan');
    assert.equal(scan.code, 0, scan.stderr);
    assert.match(scan.stdout, /node-1 .*\\u001b\]0;pwned\\u0007 update\\u001b\[2J\\r\\n\\u009b31m/);
    assert.equal((await cli('tick')).code, 0);
    const status = await cli('status');
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /node-1 .*\\u001b\]0;pwned\\u0007/);
    // One row per request: the reason's \r\n did not forge one.
    const rows = status.stdout.split('\n').filter((l) => /^r-[0-9a-f]{6} /.test(l));
    assert.equal(rows.length, 3, status.stdout);
  });

  it('status --json reads back as the reason the cluster holds', async () => {
    const json = await cli('status', '--json');
    const parsed = JSON.parse(json.stdout) as { requests: { node: string; reason: string }[] };
    const reason = parsed.requests.find((r) => r.node === 'node-1')?.reason ?? '';
    assert.ok(reason.includes(HOSTILE_TERMINAL_TEXT), reason);
  });

  it('slots shows a holder’s escape sequences', async () => {
    const locks = await cli('slots');
    assert.match(locks.stdout, /kubemaint-slot-0 {2}held by kernel \\u001b\]0;pwned\\u0007/);
  });

  it('an error that quotes a typed node name shows its escape sequences', async () => {
    const refused = await cli('reboot', `node-9\u001b[2J\u001b]0;pwned\u0007`);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /node-9\\u001b\[2J\\u001b\]0;pwned\\u0007/);
  });
});
