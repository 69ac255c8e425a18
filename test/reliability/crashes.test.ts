/**
 * Issue 9, crashes: the tick killed at random points (a cluster port that stops answering after a
 * random number of calls, as a killed process stops), over and over, while a roll goes on (10 kills in
 * a small run, 100 in a full one). Every request still ends done, or failed with the reason reported;
 * no node stays cordoned by kubemaint without an active request; the audit log keeps DESIGN §5.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { FINAL_STATES } from '../../src/core/request.js';
import { testControlDeps, testControlSettings } from '../support/control.js';
import { checkSim } from '../support/invariants.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import {
  executorSettings,
  realJobFor,
  runJobsInProcess,
  type InProcessJobs,
} from '../support/in-process-executor.js';
import { crashingCluster, TickKilled } from './crash-port.js';
import {
  clearMarks,
  COUNTS,
  FULL,
  report,
  requestOf,
  ROLL_APPROVERS,
  rollUntilDone,
} from './support.js';

const CONCURRENCY = 2;

describe('crashes: the tick killed at random points', () => {
  let sim: TestSim;
  let jobs: InProcessJobs;
  after(async () => {
    await jobs.stop();
    await sim.close();
  });

  it(`${COUNTS.crashRuns} killed ticks during a roll: every request ends done or failed-and-reported`, async () => {
    sim = await startTestSim({
      scenario: 'fleet',
      nodes: FULL ? 12 : 4,
      podsPerNode: 2,
      scale: 50,
      delays: {
        jobPodRunMs: 24 * 3_600_000,
        rebootIssueDelayMs: 60_000,
        rebootDowntimeMs: 5_000,
        heartbeatMs: 60_000,
        nodeMonitorGraceMs: 300_000,
      },
    });
    const names = clearMarks(sim);
    const exec = executorSettings(CONCURRENCY);
    const clean = testControlDeps(sim, {
      settings: testControlSettings({
        lock: { concurrency: CONCURRENCY, pools: {} },
        nodeTimeoutMs: { reboot: 4 * 3_600_000, upgrade: 4 * 3_600_000 },
        jobFor: realJobFor(exec),
      }),
    });
    jobs = runJobsInProcess(sim, exec);
    const crashing = crashingCluster(clean.cluster, {
      crashes: COUNTS.crashRuns,
      seed: 9,
      maxCalls: 12,
    });
    const deps = { ...clean, cluster: crashing.cluster };
    const fromRv = Math.max(0, ...sim.admin.audit().map((e) => e.rv));
    const figures = await rollUntilDone(sim, {
      nodes: names,
      loops: [deps],
      timeoutMs: FULL ? 600_000 : 300_000,
      // The kills are the only errors this run may see.
      injected: (error) => error instanceof TickKilled,
    });
    assert.equal(crashing.crashed(), COUNTS.crashRuns, 'every planned kill happened');
    const states = names.map((n) => `${n} ${requestOf(sim, n)?.state ?? 'none'}`);
    assert.ok(
      names.every((n) => requestOf(sim, n)?.state === 'done'),
      `all done: ${states.join(', ')}`,
    );
    // Every request that ended before done said why (failed-and-reported).
    for (const failure of figures.failures) assert.doesNotMatch(failure, /\(no reason reported\)/);
    const invariants = checkSim(sim, {
      concurrency: CONCURRENCY,
      approvers: ROLL_APPROVERS,
      fromRv,
    });
    report('killed ticks', {
      kills: crashing.crashed(),
      nodes: names.length,
      ...figures,
      ...invariants,
    });
    assert.deepEqual(invariants.violations, []);
    assert.deepEqual(figures.unexpectedErrors, [], 'every failed tick was a planned kill');
    for (const node of sim.store.list('nodes')) {
      const request = requestOf(sim, node.metadata.name ?? '');
      assert.ok(
        request === undefined || (FINAL_STATES as readonly string[]).includes(request.state),
      );
    }
  });
});
