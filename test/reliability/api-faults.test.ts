/**
 * Issue 9, API faults: the demo loop and a fleet roll (30 nodes in a full run, concurrency 4) through
 * the real tick and the real executor (in process, one per Job), while the sim's API answers 10 % of
 * requests with 500, 5 % with 429, adds 200 ms to each (20 ms in a small run) and drops watches. All maintenance completes
 * and the audit log shows no broken invariant.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { requestMaintenance } from '../../src/app/control/commands.js';
import type { TickDeps } from '../../src/app/control/tick.js';
import { POOL_LABEL } from '@kubemaint/kubesim';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../support/control.js';
import { checkSim, requestsThatIssuedHostCommands } from '../support/invariants.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import {
  executorSettings,
  realJobFor,
  runJobsInProcess,
  type InProcessJobs,
} from '../support/in-process-executor.js';
import {
  alice,
  clearMarks,
  COUNTS,
  FULL,
  isInjectedFault,
  issueFaults,
  report,
  requestOf,
  ROLL_APPROVERS,
  rollUntilDone,
} from './support.js';

const DELAYS = {
  jobPodRunMs: 24 * 3_600_000,
  rebootIssueDelayMs: 60_000,
  rebootDowntimeMs: 5_000,
  heartbeatMs: 60_000,
  nodeMonitorGraceMs: 300_000,
};

function controlFor(sim: TestSim, concurrency: number, pools = false) {
  const exec = executorSettings(concurrency);
  const deps = testControlDeps(sim, {
    settings: testControlSettings({
      lock: { concurrency, pools: {}, ...(pools ? { poolLabel: POOL_LABEL } : {}) },
      nodeTimeoutMs: { reboot: 4 * 3_600_000, upgrade: 4 * 3_600_000 },
      jobFor: realJobFor(exec),
    }),
  });
  return { exec, deps };
}

describe('API faults: 500s, 429s, latency and dropped watches', () => {
  const open: { sim: TestSim; jobs: InProcessJobs }[] = [];
  after(async () => {
    for (const { sim, jobs } of open) {
      await jobs.stop();
      await sim.close();
    }
  });

  it('the demo loop: detection, approvals, reboots and the kubelet upgrade all complete', async () => {
    const sim = await startTestSim({ scenario: 'demo', scale: 50, delays: DELAYS });
    const { exec, deps } = controlFor(sim, 2);
    const jobs = runJobsInProcess(sim, exec);
    open.push({ sim, jobs });
    const fromRv = Math.max(0, ...sim.admin.audit().map((e) => e.rv));
    sim.admin.setFaults(issueFaults());
    // What the demo needs: what detection proposes on its own (marked nodes, the lagging kubelet).
    const marked = sim.store
      .list(R.nodes)
      .filter((n) => n.metadata.labels?.['kubemaint.io/reboot-required'] === 'true')
      .map((n) => n.metadata.name ?? '');
    const lagging = sim.store
      .list(R.nodes)
      .filter((n) => {
        const info = n.status?.['nodeInfo'] as { kubeletVersion?: string } | undefined;
        return info?.kubeletVersion !== undefined && info.kubeletVersion !== 'v1.31.4';
      })
      .map((n) => n.metadata.name ?? '');
    const nodes = [...new Set([...marked, ...lagging])];
    assert.ok(marked.length > 0 && lagging.length > 0, 'the demo has reboots and an upgrade');
    const actionOf = (node: string) => (lagging.includes(node) ? 'upgrade' : 'reboot');
    const figures = await rollUntilDone(sim, {
      nodes,
      loops: [deps],
      skewScan: true,
      timeoutMs: FULL ? 600_000 : 300_000,
      injected: isInjectedFault,
      propose: (d: TickDeps, node: string) =>
        requestMaintenance(d, { node, action: actionOf(node), by: alice }),
    });
    sim.admin.setFaults([]);
    const states = nodes.map((n) => `${n}: ${requestOf(sim, n)?.state ?? 'none'}`);
    assert.ok(
      nodes.every((n) => requestOf(sim, n)?.state === 'done'),
      `all done: ${states.join(', ')}`,
    );
    const invariants = checkSim(sim, { concurrency: 2, approvers: ROLL_APPROVERS, fromRv });
    report('demo under faults', { nodes: nodes.length, ...figures, ...invariants });
    assert.deepEqual(invariants.violations, []);
    assert.deepEqual(figures.unexpectedErrors, [], 'every failed tick or command met a fault');
    // The demo's PDBs were consulted: the PDB check above judged real evictions.
    assert.ok(invariants.evictions > 0, 'evictions were checked against their PDBs');
  });

  it(`a ${COUNTS.rollNodes}-node roll at concurrency 4: every node's maintenance completes`, async () => {
    const sim = await startTestSim({
      scenario: 'fleet',
      nodes: COUNTS.rollNodes,
      podsPerNode: 2,
      scale: 50,
      delays: DELAYS,
    });
    const names = clearMarks(sim);
    const { exec, deps } = controlFor(sim, 4);
    const jobs = runJobsInProcess(sim, exec);
    open.push({ sim, jobs });
    const fromRv = Math.max(0, ...sim.admin.audit().map((e) => e.rv));
    sim.admin.setFaults(issueFaults());
    const figures = await rollUntilDone(sim, {
      nodes: names,
      loops: [deps],
      timeoutMs: FULL ? 1_200_000 : 300_000,
      injected: isInjectedFault,
    });
    sim.admin.setFaults([]);
    const notDone = names
      .filter((n) => requestOf(sim, n)?.state !== 'done')
      .map((n) => `${n} ${requestOf(sim, n)?.state ?? 'none'} ${requestOf(sim, n)?.failure ?? ''}`);
    assert.deepEqual(notDone, [], `every node ended done: ${JSON.stringify(figures)}`);
    const invariants = checkSim(sim, { concurrency: 4, approvers: ROLL_APPROVERS, fromRv });
    report('fleet roll under faults', { nodes: names.length, ...figures, ...invariants });
    assert.deepEqual(invariants.violations, []);
    assert.deepEqual(figures.unexpectedErrors, [], 'every failed tick or command met a fault');
    // Exactly one reboot per request that issued its host command: each node's done request, plus
    // any that failed after its reboot and was proposed again. Not "at least".
    const rebooted = requestsThatIssuedHostCommands(sim.admin.audit(), fromRv);
    const reboots = sim.admin.hostLog().filter((a) => a.action === 'reboot');
    assert.equal(
      reboots.length,
      rebooted.size,
      `${reboots.length} reboots, ${rebooted.size} requests`,
    );
    for (const node of names) {
      const done = requestOf(sim, node)!;
      assert.ok(rebooted.has(`${node}/${done.id}`), `${node}: its done request rebooted it`);
      assert.equal(
        reboots.filter((a) => a.node === node).length,
        [...rebooted].filter((r) => r.startsWith(`${node}/`)).length,
        `${node}: one reboot per request that issued one`,
      );
    }
    assert.ok(invariants.maxDisrupted <= 4);
    assert.ok(invariants.evictions > 0, 'evictions were checked against their PDBs');
  });
});
