/**
 * Issue 21, "on a 30-node cluster with one PDB that never allows an eviction and a window of 60
 * minutes, `rehearse --json` names the stuck node and its PDB and predicts which nodes finish inside
 * the window": the cluster is a sim; `kubemaint rehearse` runs as the CLI, reads it and rehearses
 * on a twin of its own. Two nodes are stuck, one behind a budget that selects by matchLabels and one
 * by matchExpressions; the cluster is paused, which the twin does not play and the report says. The
 * cluster itself is left as it was (no request, no cordon). How close the prediction comes to the
 * campaign run for real is a benchmark (bench/rehearse-accuracy.ts), not a test.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { R } from '@kubemaint/kubesim';
import type { RehearsalReport } from '../../../src/app/control/rehearsal.js';
import { LABEL_REBOOT_REQUIRED, PAUSE_CONFIGMAP } from '../../../src/core/names.js';
import { runCli } from '../../support/cli-process.js';
import { guardPodOnNode, type GuardedPod } from '../../support/guarded-pod.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const NODES = 30;

describe('kubemaint rehearse on a 30-node cluster', () => {
  let sim: TestSim;
  let dir: string;
  let guards: GuardedPod[];
  before(async () => {
    sim = await startTestSim({ scenario: 'fleet', nodes: NODES, podsPerNode: 2, scale: 1 });
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-rehearse-test-'));
    const names = sim.store.list(R.nodes).map((n) => n.metadata.name ?? '');
    for (const name of names)
      sim.store.mutate(R.nodes, undefined, name, (n) => {
        n.metadata.labels = { ...n.metadata.labels, [LABEL_REBOOT_REQUIRED]: 'true' };
      });
    // One replica pinned to each of two nodes, and budgets that never let them go.
    guards = [
      { name: 'guarded', node: names[7]!, selector: 'matchLabels' },
      { name: 'guarded-by-expression', node: names[19]!, selector: 'matchExpressions' },
    ];
    for (const guard of guards) await guardPodOnNode(sim, guard);
    sim.store.create(R.configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: PAUSE_CONFIGMAP, namespace: 'kubemaint' },
      data: { paused: 'true', by: 'k8s:alice', reason: 'release in progress' },
    });
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
    for (const guard of guards) {
      const node = report.nodes.find((n) => n.node === guard.node)!;
      assert.notEqual(node.state, 'done', guard.selector);
      // Named before any drain tries (the snapshot's pods and budgets), and as a wait once one does.
      assert.ok(
        node.cannotEvict.some((p) => p.why === `PDB ${guard.name} never allows an eviction`),
        `${guard.selector}: ${JSON.stringify(node)}`,
      );
      // (Another app's budget may hold it a moment too, while a node beside it drains that app.)
      if (node.pdbWaits.length > 0)
        assert.ok(
          node.pdbWaits.some((wait) => wait.pdb.replace(/^default\//, '') === guard.name),
          `${guard.selector}: ${JSON.stringify(node.pdbWaits)}`,
        );
    }
    const held = report.nodes.filter((n) => n.state !== 'done' && n.cannotEvict.length > 0);
    assert.deepEqual(held.map((n) => n.node).sort(), guards.map((g) => g.node).sort());
    // The pause is not played by the twin: the report says it holds everything, first of all.
    assert.equal(report.campaign.gates.length, 1);
    assert.match(report.campaign.gates[0]!, /paused by k8s:alice \(release in progress\)/);
    assert.match(report.campaign.firstDecision, /^the cluster is paused by k8s:alice/);
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

  it('rehearses the cluster --cluster names, under its own windows and slots', async () => {
    const several = mkdtempSync(join(tmpdir(), 'kubemaint-rehearse-clusters-'));
    writeFileSync(
      join(several, 'kubemaint.yaml'),
      [
        'slot: {concurrency: 3}',
        'windows:',
        "  - {days: [mon, tue, wed, thu, fri, sat, sun], start: '22:00', end: '23:00'}",
        'clusters:',
        '  - name: staging',
        `    kubeconfig: {path: ${join(several, 'no-such.kubeconfig')}}`,
        '  - name: production',
        `    kubeconfig: {path: ${sim.kubeconfigPath}}`,
        '    slot: {concurrency: 1}',
        '    windows:',
        "      - {days: [mon, tue, wed, thu, fri, sat, sun], start: '22:00', end: '22:30'}",
        'blockers:',
        '  clusters: {order: [staging, production]}',
        '',
      ].join('\n'),
    );
    const unnamed = await runCli(['rehearse', '--json'], { cwd: several });
    assert.equal(unnamed.code, 2, unnamed.stderr);
    assert.match(unnamed.stderr, /the config lists 2 clusters: say which with --cluster NAME/);
    const result = await runCli(
      ['rehearse', '--cluster', 'production', '--at', '2030-01-07T22:00:00Z', '--json'],
      { cwd: several },
    );
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as RehearsalReport;
    assert.equal(report.nodes.length, NODES, 'the production entry reaches the sim');
    assert.equal(Date.parse(report.window.closesAt ?? ''), Date.parse('2030-01-07T22:30:00Z'));
    const slots = new Set(report.nodes.flatMap((n) => (n.slot ? [n.slot] : [])));
    assert.deepEqual([...slots], ['kubemaint-slot-0'], 'production’s one slot');
    assert.ok(
      report.campaign.gates.some((g) =>
        g.startsWith('blockers.clusters judges production from staging'),
      ),
      report.campaign.gates.join('\n'),
    );
  });
});
