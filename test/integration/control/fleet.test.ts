/**
 * Issue 5, "a 50-node fleet with concurrency 5 rolls to completion": every node of a 50-node sim is
 * marked, auto-approved, and rolled by the real tick and the real executor (in process, one per Job)
 * until every request is done, each reboot proven by a new bootID; never more than 5 nodes in flight
 * or cordoned by kubemaint at once, checked after every tick and over the whole audit log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runTick } from '../../../src/app/control/tick.js';
import { AUTO_APPROVE_RULE } from '../../../src/app/control/settings.js';
import { ANN_REBOOT_REQUIRED_SINCE, LABEL_REBOOT_REQUIRED } from '../../../src/core/names.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import {
  executorSettings,
  maxDisruptedAtOnce,
  realJobFor,
  requestOn,
  runJobsInProcess,
  type InProcessJobs,
} from '../../support/in-process-executor.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const NODES = 50;
const CONCURRENCY = 5;

describe('a 50-node fleet with concurrency 5', () => {
  let sim: TestSim;
  let jobs: InProcessJobs;

  before(async () => {
    sim = await startTestSim({
      scenario: 'fleet',
      nodes: NODES,
      podsPerNode: 3,
      scale: 100,
      delays: {
        // The no-op Job's pod stays active while the in-process executor plays its container.
        jobPodRunMs: 24 * 3_600_000,
        // Short reboots keep the roll to seconds of wall time at a scale where 50 kubelets'
        // heartbeats leave the two cores to the tick.
        rebootDowntimeMs: 5_000,
        // As `systemctl reboot` on a real host, the machine goes down a while after the command
        // returns. Short, so that some reboots end their Job's pod: a tick that read the request
        // before that must not fail the rebooting node (reconcile re-reads the node first).
        rebootIssueDelayMs: 10_000,
        // Fewer heartbeats: each one moves the node's resourceVersion, and a tick writing 50
        // requests from one list would otherwise retry most of its conditional writes.
        heartbeatMs: 60_000,
        nodeMonitorGraceMs: 300_000,
      },
    });
  });
  after(async () => {
    await jobs?.stop();
    await sim.close();
  });

  it('rolls to completion, every reboot proven, never more than 5 at once', async () => {
    const since = new Date(sim.clock.now().getTime() - 3_600_000).toISOString();
    const names = sim.store.list(R.nodes).map((n) => n.metadata.name ?? '');
    assert.equal(names.length, NODES);
    const bootBefore = new Map<string, string>();
    for (const name of names) {
      sim.store.mutate(R.nodes, undefined, name, (n) => {
        n.metadata.labels = { ...n.metadata.labels, [LABEL_REBOOT_REQUIRED]: 'true' };
        n.metadata.annotations = { ...n.metadata.annotations, [ANN_REBOOT_REQUIRED_SINCE]: since };
      });
      const info = sim.store.get(R.nodes, undefined, name)?.status?.['nodeInfo'] as {
        bootID: string;
      };
      bootBefore.set(name, info.bootID);
    }
    const fromRv = Math.max(...sim.admin.audit().map((e) => e.rv));
    const exec = executorSettings(CONCURRENCY);
    const settings = testControlSettings({
      lock: { concurrency: CONCURRENCY, pools: {} },
      // A slow tick on busy cores is minutes of sim time at scale 100: generous sim timeouts.
      nodeTimeoutMs: { reboot: 2 * 3_600_000, upgrade: 2 * 3_600_000 },
      autoApprove: [],
      approval: {
        users: ['k8s:alice'],
        groups: [],
        autoApproveRules: [AUTO_APPROVE_RULE],
        expiresAfterMs: 72 * 3_600_000,
      },
      jobFor: realJobFor(exec),
    });
    const deps = testControlDeps(sim, { settings });
    jobs = runJobsInProcess(sim, exec);

    const started = sim.clock.now().getTime();
    // Each slot hand-off rewrites the blocked reasons (the holder list) of every waiting request,
    // with an Event each: ~40 writes a wave. An idle machine rolls in about a minute; two cores
    // shared by several test runs take minutes, so the budget is generous.
    const wallDeadline = Date.now() + 420_000;
    let ticks = 0;
    for (;;) {
      await runTick(deps);
      ticks++;
      const states = names.map((n) => requestOn(sim, n)?.state);
      const inFlight = states.filter((s) => s === 'running' || s === 'verifying').length;
      assert.ok(inFlight <= CONCURRENCY, `${inFlight} in flight after tick ${ticks}`);
      const failed = names.filter((n) => requestOn(sim, n)?.state === 'failed');
      assert.deepEqual(
        failed,
        [],
        `failed: ${failed.map((n) => requestOn(sim, n)?.failure).join('; ')}`,
      );
      if (states.every((s) => s === 'done')) break;
      assert.ok(
        Date.now() < wallDeadline,
        `not done in time: ${JSON.stringify(countStates(states))}`,
      );
      await new Promise((r) => setTimeout(r, 50));
    }
    const simMinutes = (sim.clock.now().getTime() - started) / 60_000;

    for (const name of names) {
      const node = sim.store.get(R.nodes, undefined, name)!;
      const info = node.status?.['nodeInfo'] as { bootID: string };
      assert.notEqual(info.bootID, bootBefore.get(name), `${name} rebooted`);
      assert.notEqual(node.spec?.['unschedulable'], true, `${name} uncordoned`);
      assert.equal(
        node.metadata.labels?.[LABEL_REBOOT_REQUIRED],
        undefined,
        `${name} mark cleared`,
      );
    }
    const reboots = sim.admin.hostLog().filter((a) => a.action === 'reboot' && !a.duplicate);
    assert.equal(reboots.length, NODES, 'one reboot per node');
    const peak = maxDisruptedAtOnce(sim.admin.audit(), fromRv);
    assert.ok(peak.overall <= CONCURRENCY, `peak ${peak.overall} nodes disrupted at once`);
    assert.ok(peak.overall >= 2, `the roll ran nodes in parallel (peak ${peak.overall})`);
    assert.ok(deps.events.filter((e) => e.kind === 'done').length === NODES);
    assert.ok(simMinutes > 0);
  });
});

function countStates(states: (string | undefined)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of states) counts[s ?? 'none'] = (counts[s ?? 'none'] ?? 0) + 1;
  return counts;
}
