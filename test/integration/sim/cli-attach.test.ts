/**
 * `kubemaint sim --attach` as a child process against an embedded sim served by the test: the one
 * ready line, Ready nodes, a clean stop on SIGTERM that deletes the nodes with --cleanup; bad input is
 * one line on stderr and exit 2; --help teaches the mode and what the kubeconfig needs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubeconfigYaml } from '@kubemaint/kubesim/api';
import { findCondition, type Condition } from '@kubemaint/kubesim/testing';
import { R } from '@kubemaint/kubesim';
import { runCli, startCli } from '../../support/cli-process.js';
import { getConfigz } from '../../support/kubelet-configz.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

describe('kubemaint sim --attach (child process)', { concurrency: true }, () => {
  let sim: TestSim;
  let dir: string;
  before(async () => {
    // Wall-clock time on both sides: the CLI's kubelets run on their own clock at scale 1.
    sim = await startTestSim({ scenario: 'empty', scale: 1 });
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-attach-cli-'));
  });
  after(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the attached line once the nodes are Ready, and deletes them on SIGTERM with --cleanup', async () => {
    const cli = startCli(
      [
        'sim',
        '--attach',
        sim.kubeconfigPath,
        '--nodes',
        '2',
        '--name-prefix',
        'cli-',
        '--max-pods',
        '300',
        '--cleanup',
        '--shutdown-grace-period',
        '20s',
        '--shutdown-grace-period-critical-pods',
        '5s',
      ],
      { cwd: dir },
    );
    try {
      // The ready line is the readiness; the bound is generous (a loaded machine took over 60 s).
      await cli.waitFor(/\n/, 240_000);
      assert.match(
        cli.stdout(),
        new RegExp(
          `^kubemaint sim attached: nodes=2 kubeconfig=${sim.kubeconfigPath} host=http://127\\.0\\.0\\.1:\\d+ configz=cli-0=https://127\\.0\\.0\\.1:\\d+,cli-1=https://127\\.0\\.0\\.1:\\d+\\n$`,
        ),
      );
      // Each kubelet's /configz asks the sim (TokenReview, SubjectAccessReview) as its node.
      const configz = /cli-0=(https:\S+?),/.exec(cli.stdout())![1]!;
      const agent = sim.credentials.serviceAccountToken('kubemaint', 'kubemaint-agent');
      const allowed = await getConfigz(configz, agent);
      assert.equal(allowed.status, 200, allowed.body);
      assert.match(
        allowed.body,
        /"shutdownGracePeriod":"20s","shutdownGracePeriodCriticalPods":"5s"/,
      );
      const executor = sim.credentials.serviceAccountToken('kubemaint', 'kubemaint-executor');
      assert.equal((await getConfigz(configz, executor)).status, 403);
      for (const name of ['cli-0', 'cli-1']) {
        const node = sim.store.get(R.nodes, undefined, name);
        const conditions = node?.status?.['conditions'] as Condition[] | undefined;
        assert.equal(findCondition(conditions, 'Ready')?.status, 'True', `${name} Ready`);
        // --max-pods is what the scheduler reads, and the kubelet's status writes keep it.
        const allocatable = node?.status?.['allocatable'] as Record<string, string> | undefined;
        assert.equal(allocatable?.['pods'], '300', `${name} takes 300 pods`);
      }
      assert.equal(await cli.stop(), 0, cli.stderr());
      assert.equal(sim.store.get(R.nodes, undefined, 'cli-0'), undefined, '--cleanup deleted it');
      assert.equal(cli.stdout().split('\n').filter(Boolean).length, 1, 'one line on stdout');
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  const unreachable = () => {
    const path = join(dir, 'unreachable.kubeconfig');
    writeFileSync(path, kubeconfigYaml({ url: 'https://127.0.0.1:1', token: 't' }));
    return path;
  };
  const cases: [string, () => string[], RegExp][] = [
    [
      'N is not a positive integer',
      () => ['--attach', sim.kubeconfigPath, '--nodes', '0'],
      /--nodes "0" is not a positive whole number/,
    ],
    [
      'N is not a number',
      () => ['--attach', sim.kubeconfigPath, '--nodes', 'three'],
      /--nodes "three"/,
    ],
    [
      '--max-pods is not a positive whole number',
      () => ['--attach', sim.kubeconfigPath, '--max-pods', '-5'],
      /--max-pods "-5" is not a positive whole number/,
    ],
    [
      'the kubeconfig is unreadable',
      () => ['--attach', join(dir, 'missing.kubeconfig')],
      /cannot read kubeconfig .*missing\.kubeconfig/,
    ],
    [
      'the server is unreachable',
      () => ['--attach', unreachable()],
      /cannot reach the API server at https:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
    ],
    [
      'an embedded-only option is given',
      () => ['--attach', sim.kubeconfigPath, '--scenario', 'demo'],
      /--scenario do not apply with --attach/,
    ],
    [
      '--shutdown-grace-period is not a duration',
      () => ['--attach', sim.kubeconfigPath, '--shutdown-grace-period', '20'],
      /--shutdown-grace-period "20" is not a duration as the kubelet config takes it \(20s, 1m30s, 0s\)/,
    ],
    [
      'an attach-only option is given alone',
      () => ['--cleanup'],
      /--cleanup only make sense with --attach/,
    ],
  ];
  for (const [why, args, message] of cases) {
    it(`exits 2 with one line when ${why}`, async () => {
      const cli = await runCli(['sim', ...args()], { cwd: dir });
      assert.equal(cli.code, 2, cli.stderr);
      assert.equal(cli.stdout, '');
      const lines = cli.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line, no stack: ${cli.stderr}`);
      assert.match(lines[0]!, /^error: /);
      assert.match(lines[0]!, message);
    });
  }

  it('teaches attach mode in --help, with what the kubeconfig needs', async () => {
    const cli = await runCli(['sim', '--help'], { cwd: dir });
    assert.equal(cli.code, 0);
    for (const text of [
      '--attach',
      '--name-prefix',
      '--kubelet-version',
      '--max-pods',
      '--cleanup',
      'impersonate',
      '`list` and `watch` on pods',
      'system:node:',
    ]) {
      assert.ok(cli.stdout.includes(text), `--help mentions ${text}`);
    }
  });
});
