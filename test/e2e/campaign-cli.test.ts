/**
 * A campaign decided on the CLI (ADR 0042): `kubemaint serve` on the embedded demo proposes the two
 * nodes marked for the same reason as one campaign; under the two-person rule alice, then bob, each
 * run `approve --campaign NAME` (separate processes, each as their own identity), which records one
 * decision object per request in their name; the campaign then runs to done. Bad input is refused
 * before anything is recorded.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startCli, type LongRunning } from '../support/cli-process.js';
import { waitFor } from '../support/sim.js';

const CONFIG = `cluster:
  type: sim
  sim:
    scenario: demo
approval:
  twoPerson: true
  approvers:
    kubernetes:
      users: [alice, bob]
slot:
  concurrency: 3
schedules:
  tick: "0 0 1 1 *"
`;

interface StatusJson {
  requests: { id: string; node: string; action: string; state: string; campaign?: string }[];
}

describe('a campaign approved on the CLI by two persons', { timeout: 900_000 }, () => {
  let dir: string;
  let serve: LongRunning;
  let kubeconfig: string;
  let campaign: string;
  const status = async () => {
    const result = await runCli(['status', '--json'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    return (JSON.parse(result.stdout) as StatusJson).requests;
  };
  const ofCampaign = async () => (await status()).filter((r) => r.campaign === campaign);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-campaign-'));
    writeFileSync(join(dir, 'kubemaint.yaml'), CONFIG);
    serve = startCli(['serve', '--ops-port', '0', '--ops-host', '127.0.0.1'], { cwd: dir });
    kubeconfig = (await serve.waitFor(/serve ready: .*kubeconfig=(\S+)/, 180_000))[1]!;
    const requests = await waitFor(
      'the reboot campaign',
      async () => {
        const found = (await status()).filter((r) => r.action === 'reboot' && r.campaign);
        return found.length === 2 ? found : undefined;
      },
      60_000,
    );
    campaign = requests[0]!.campaign!;
    assert.equal(requests[1]!.campaign, campaign);
  });

  after(async () => {
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses bad input before recording anything (exit 2)', async () => {
    const unknown = await runCli(['approve', '--campaign', 'c-000000', '--as', 'alice'], {
      cwd: dir,
    });
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /there is no campaign "c-000000"/);
    assert.match(unknown.stderr, new RegExp(`campaigns with requests: .*${campaign}`));
    const both = await runCli(['reject', 'r-abcdef', '--campaign', campaign, '--as', 'alice'], {
      cwd: dir,
    });
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /not both/);
    const neither = await runCli(['cancel', '--as', 'alice'], { cwd: dir });
    assert.equal(neither.code, 2, neither.stderr);
    assert.match(neither.stderr, /needs a request id or --campaign NAME/);
    const malformed = await runCli(['approve', '--campaign', 'C;rm', '--as', 'alice'], {
      cwd: dir,
    });
    assert.equal(malformed.code, 2, malformed.stderr);
    assert.match(malformed.stderr, /is not a campaign name/);
    for (const r of await ofCampaign()) assert.equal(r.state, 'proposed');
  });

  it('a non-approver is refused on every request, each named (exit 5)', async () => {
    const refused = await runCli(['approve', '--campaign', campaign, '--as', 'mallory'], {
      cwd: dir,
    });
    assert.equal(refused.code, 5, refused.stderr);
    assert.equal(refused.stderr.match(/k8s:mallory is not an approver/g)?.length, 2);
  });

  it('alice, then bob, approve the campaign: one decision each per request, and it runs to done', async () => {
    const first = await runCli(['approve', '--campaign', campaign, '--as', 'alice'], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim().split('\n').length, 2, first.stdout);
    for (const r of await ofCampaign()) assert.equal(r.state, 'proposed', 'one person is not two');

    const second = await runCli(['approve', '--campaign', campaign, '--as', 'bob'], { cwd: dir });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /is approved/);

    // One MaintenanceApproval per request and person who decided, each bound to its author.
    const decisions = JSON.parse(
      execFileSync('kubectl', [
        '--kubeconfig',
        kubeconfig,
        'get',
        'maintenanceapprovals',
        '-n',
        'kubemaint',
        '-o',
        'json',
      ]).toString(),
    ) as { items: { spec: { request: string; approver: string; decision: string } }[] };
    const ids = new Set((await ofCampaign()).map((r) => r.id));
    const mine = decisions.items
      .filter((d) => ids.has(d.spec.request) && d.spec.decision === 'approve')
      .map((d) => `${d.spec.request} ${d.spec.approver}`)
      .sort();
    assert.deepEqual(
      mine,
      // mallory's too: a refused decision is recorded in her name, and refused.
      [...ids].flatMap((id) => [`${id} alice`, `${id} bob`, `${id} mallory`]).sort(),
      JSON.stringify(decisions.items.map((d) => d.spec)),
    );

    await waitFor(
      'the campaign done',
      async () => {
        const requests = await ofCampaign();
        return requests.every((r) => r.state === 'done') ? requests : undefined;
      },
      240_000,
    );
  });
});
