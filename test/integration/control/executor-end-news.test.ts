/**
 * What the control plane says of requests the executor ended (it may not speak to Slack or relabel
 * the node itself): a recent end is reported once; an old one (from before the control plane
 * reported executor ends, or from a long outage) is recorded as said without telling anyone; and an
 * end reported after the node got a newer request leaves the node's state label to the newer one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runTick } from '../../../src/app/control/tick.js';
import { EXECUTOR_END_NEWS_MS } from '../../../src/app/control/reconcile.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps } from '../../support/control.js';
import { requestReader, type RequestReader } from '../../support/requests.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const STATE = 'kubemaint.io/state';

/** A reboot request the executor failed at `endedAt` (its drain blocked). */
function failedByExecutor(id: string, node: string, endedAt: Date): MaintenanceRequest {
  const at = (minutesBefore: number) =>
    new Date(endedAt.getTime() - minutesBefore * 60_000).toISOString();
  return {
    id,
    node,
    action: 'reboot',
    state: 'failed',
    reason: 'reboot-required label',
    requestedBy: 'detector',
    createdAt: at(30),
    updatedAt: endedAt.toISOString(),
    approvals: [{ by: 'U123', at: at(20) }],
    failure: 'drain blocked: PDB default/guarded allows no eviction',
    history: [
      { from: null, to: 'proposed', at: at(30), by: 'detector' },
      { from: 'proposed', to: 'approved', at: at(20), by: 'U123' },
      { from: 'approved', to: 'running', at: at(10), by: 'kubemaint' },
      { from: 'running', to: 'failed', at: endedAt.toISOString(), by: 'executor' },
    ],
  };
}

describe('requests the executor ended, as the control plane reports them', () => {
  let sim: TestSim;
  let requests: RequestReader;
  let nodes: string[];
  before(async () => {
    sim = await startTestSim({ scenario: 'fleet', nodes: 3, podsPerNode: 1 });
    requests = requestReader(sim.kubeconfigPath);
    nodes = sim.store
      .list(R.nodes)
      .map((n) => n.metadata.name ?? '')
      .sort();
    for (const node of nodes)
      sim.store.mutate(R.nodes, undefined, node, (o) => {
        delete o.metadata.labels?.['kubemaint.io/reboot-required'];
        o.metadata.labels = { ...o.metadata.labels, [STATE]: 'running' };
      });
  });
  after(() => sim.close());

  const labelOf = (node: string) =>
    sim.store.get(R.nodes, undefined, node)?.metadata.labels?.[STATE];

  it('reports a recent end once, tells nobody of an old one, and records both as said', async () => {
    const [recentNode, oldNode] = nodes as [string, string];
    const now = sim.clock.now();
    await requests.seed(failedByExecutor('r-00aa01', recentNode, new Date(now.getTime() - 60_000)));
    await requests.seed(
      failedByExecutor(
        'r-00aa02',
        oldNode,
        new Date(now.getTime() - EXECUTOR_END_NEWS_MS - 60_000),
      ),
    );
    const deps = testControlDeps(sim);
    await runTick(deps);
    await runTick(deps);
    const told = (node: string) => deps.events.filter((e) => e.node === node);
    assert.equal(told(recentNode).length, 1, 'the recent end is reported once');
    assert.match(told(recentNode)[0]!.reason ?? '', /^failed by the executor: drain blocked/);
    assert.equal(told(oldNode).length, 0, 'an end older than a day is nobody’s news');
    assert.ok((await requests.byId('r-00aa01'))?.announced?.includes('ended'));
    assert.ok(
      (await requests.byId('r-00aa02'))?.announced?.includes('ended'),
      'the old end is recorded as said, so no later tick reads its node again',
    );
    assert.equal(labelOf(recentNode), 'failed', 'the label follows the node’s only request');
  });

  it('leaves the state label to a newer request of the node', async () => {
    const node = nodes[2]!;
    const now = sim.clock.now();
    await requests.seed(failedByExecutor('r-00bb01', node, new Date(now.getTime() - 120_000)));
    // A person's newer request on the node, proposed before the end above was reported.
    const newer = failedByExecutor('r-00bb02', node, now);
    await requests.seed({
      ...newer,
      state: 'proposed',
      createdAt: new Date(now.getTime() - 60_000).toISOString(),
      updatedAt: new Date(now.getTime() - 60_000).toISOString(),
      approvals: [],
      failure: undefined,
      history: newer.history.slice(0, 1),
    });
    sim.store.mutate(R.nodes, undefined, node, (o) => {
      o.metadata.labels = { ...o.metadata.labels, [STATE]: 'proposed' };
    });
    const deps = testControlDeps(sim);
    await runTick(deps);
    assert.equal(
      deps.events.filter((e) => e.requestId === 'r-00bb01').length,
      1,
      'the old request’s end is still reported',
    );
    assert.ok((await requests.byId('r-00bb01'))?.announced?.includes('ended'));
    assert.equal(labelOf(node), 'proposed', 'the node shows its newer request’s state');
  });
});
