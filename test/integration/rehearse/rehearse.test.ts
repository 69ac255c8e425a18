/**
 * Issue 21, "on a 30-node cluster with one PDB that never allows an eviction and a window of 60
 * minutes, `rehearse --json` names the stuck node and its PDB and predicts which nodes finish inside
 * the window": the cluster is a sim; `kubemaint rehearse` runs as the CLI, reads it and rehearses
 * on a twin of its own. The cluster itself is left as it was (no request, no cordon).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { R } from '@kubemaint/kubesim';
import type { RehearsalReport } from '../../../src/app/control/rehearsal.js';
import { LABEL_REBOOT_REQUIRED } from '../../../src/core/names.js';
import { runCli } from '../../support/cli-process.js';
import { startTestSim, waitFor, isReady, type TestSim } from '../../support/sim.js';

const NODES = 30;

describe('kubemaint rehearse on a 30-node cluster', () => {
  let sim: TestSim;
  let dir: string;
  let stuck: string;
  before(async () => {
    sim = await startTestSim({ scenario: 'fleet', nodes: NODES, podsPerNode: 2, scale: 1 });
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-rehearse-test-'));
    const names = sim.store.list(R.nodes).map((n) => n.metadata.name ?? '');
    for (const name of names)
      sim.store.mutate(R.nodes, undefined, name, (n) => {
        n.metadata.labels = { ...n.metadata.labels, [LABEL_REBOOT_REQUIRED]: 'true' };
      });
    stuck = names[7]!;
    // One replica pinned to one node, and a budget that never lets it go.
    const labels = { app: 'guarded' };
    sim.store.create(R.deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'guarded', namespace: 'default', labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            nodeSelector: { 'kubernetes.io/hostname': stuck },
            containers: [{ name: 'app', image: 'example.invalid/app:1' }],
          },
        },
      },
    });
    sim.store.create(R.pdbs, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'guarded', namespace: 'default' },
      spec: { selector: { matchLabels: labels }, minAvailable: 1 },
    });
    await waitFor(
      'the guarded pod running on its node',
      () =>
        sim.store
          .list(R.pods, { namespace: 'default' })
          .find((p) => p.metadata.labels?.['app'] === 'guarded' && isReady(p)),
      60_000,
    );
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      [
        'cluster:',
        '  type: kubeconfig',
        '  name: rehearsal-test',
        '  kubeconfig:',
        `    path: ${sim.kubeconfigPath}`,
        'slot:',
        '  concurrency: 3',
        'windows:',
        '  - days: [mon, tue, wed, thu, fri, sat, sun]',
        "    start: '22:00'",
        "    end: '23:00'",
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await sim.close();
  });

  it('names the stuck node and its PDB, and which nodes finish inside the window', async () => {
    const html = join(dir, 'timeline.html');
    const result = await runCli(
      ['rehearse', '--at', '2030-01-07T22:00:00Z', '--json', '--html', html],
      { cwd: dir },
    );
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as RehearsalReport;
    assert.equal(report.schema, 'kubemaint.io/rehearsal/v1');
    assert.equal(report.nodes.length, NODES);
    assert.equal(report.durations.reboot.source, 'config');
    const node = report.nodes.find((n) => n.node === stuck)!;
    assert.notEqual(node.state, 'done');
    // Named before any drain tries (the snapshot's pods and budgets), and as a wait once one does.
    assert.ok(
      node.cannotEvict.some((p) => /PDB guarded never allows/.test(p.why)),
      JSON.stringify(node),
    );
    for (const wait of node.pdbWaits) assert.match(wait.pdb, /guarded/);
    assert.match(report.campaign.firstDecision, new RegExp(`${stuck}.*PDB \\S*guarded`));
    const closes = Date.parse(report.window.closesAt ?? '');
    assert.equal(closes, Date.parse('2030-01-07T23:00:00Z'));
    const inside = report.nodes.filter((n) => n.window === 'fits');
    assert.equal(report.campaign.finishedInWindow, inside.length);
    assert.ok(inside.length > 0, 'some nodes finish inside the window');
    assert.ok(inside.length < NODES, 'not all of them: one is stuck');
    for (const n of inside) assert.ok(Date.parse(n.end ?? '') <= closes, `${n.node} ends in time`);
    for (const n of report.nodes.filter((n) => n.window === 'does not fit'))
      assert.ok(!n.end || Date.parse(n.end) > closes, `${n.node} said not to fit`);
    assert.match(readFileSync(html, 'utf8'), /<svg class="timeline"/);
    // The cluster rehearsed on is untouched.
    assert.equal(sim.store.list('maintenancerequests.kubemaint.io').length, 0);
    assert.ok(sim.store.list(R.nodes).every((n) => n.spec?.['unschedulable'] !== true));
  });
});
