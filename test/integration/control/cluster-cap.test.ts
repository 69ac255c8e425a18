/**
 * `blockers.clusters.maxInMaintenance` on two embedded clusters, their ticks racing in one process
 * (ADR 0027): each has an approved request, at most one cluster may be in maintenance, and both
 * ticks run at once. Exactly one starts; the other waits with a reason naming the first. The claim
 * a start takes before anything is awaited is what makes this hold: without it, both read the
 * other idle and both start.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approveRequest } from '../../../src/app/control/commands.js';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import { clusterPeers } from '../../../src/compose/cluster-peers.js';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;

describe('at most one cluster in maintenance, two ticks racing', () => {
  const names = ['east', 'west'];
  const sims: TestSim[] = [];
  const deps: TickDeps[] = [];

  before(async () => {
    const peers = clusterPeers({ gate: { order: [], soak: 0, maxInMaintenance: 1 }, names });
    for (const name of names) {
      const sim = await startTestSim({
        scenario: 'demo',
        delays: { jobPodRunMs: 24 * 3_600_000 },
      });
      sims.push(sim);
      const one = testControlDeps(sim, {
        settings: testControlSettings({ cluster: name, kubelet: { enabled: false } }),
      });
      peers.add(name, one.cluster);
      deps.push({ ...one, peers: peers.port });
    }
  });
  after(async () => {
    for (const sim of sims) await sim.close();
  });

  it('starts exactly one, and the other says why it waits', async () => {
    for (const one of deps) {
      await runTick(one);
      const node2 = (await one.cluster.listRequests()).find((r) => r.node === 'node-2')!;
      assert.ok((await approveRequest(one, node2.id, alice)).ok);
    }
    await Promise.all(deps.map((one) => runTick(one)));
    const states = await Promise.all(
      deps.map(async (one) => (await one.cluster.listRequests()).find((r) => r.node === 'node-2')!),
    );
    const started = states.filter((r) => r.state === 'running');
    assert.equal(started.length, 1, JSON.stringify(states.map((r) => [r.state, r.blockedReasons])));
    const waiting = states.find((r) => r.state === 'approved')!;
    const first = names[states.indexOf(started[0]!)]!;
    assert.match(
      waiting.blockedReasons?.join('; ') ?? '',
      new RegExp(`1 other cluster is in maintenance \\(${first}\\); at most 1 at once`),
    );
  });
});
