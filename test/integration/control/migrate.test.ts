/**
 * Requests the first release left in the node annotation `kubemaint.io/request` (ADR 0012): carried
 * over once at a skew scan, never with their approvals; a running one refused with an Event that
 * says how to finish it; an unreadable one removed with an Event.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { controlCluster } from '../../../src/adapters/kube/control-cluster.js';
import { MERGE_PATCH } from '../../../src/adapters/kube/nodes.js';
import { ANN_REQUEST } from '../../../src/core/names.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { testControlSettings } from '../../support/control.js';
import { requestReader } from '../../support/requests.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

describe('requests left in node annotations by the first release', () => {
  let sim: TestSim;
  let deps: TickDeps;
  const at = new Date().toISOString();
  const old = (
    id: string,
    node: string,
    state: MaintenanceRequest['state'],
  ): MaintenanceRequest => ({
    id,
    node,
    action: 'reboot',
    state,
    reason: 'kernel',
    requestedBy: 'U0ALICE',
    createdAt: at,
    updatedAt: at,
    approvals: [{ by: 'U0BOB', at }],
    history: [{ from: null, to: 'proposed', at, by: 'U0ALICE' }],
  });
  const annotate = (node: string, value: string) =>
    sim.core.patchNode(
      { name: node, body: { metadata: { annotations: { [ANN_REQUEST]: value } } } },
      MERGE_PATCH,
    );
  const annotationOf = async (node: string) =>
    (await sim.core.readNode({ name: node })).metadata?.annotations?.[ANN_REQUEST];
  const eventsOf = async (node: string) =>
    (await sim.core.listNamespacedEvent({ namespace: 'default' })).items
      .filter((e) => e.involvedObject.name === node && e.reason === 'KubemaintMigration')
      .map((e) => e.message ?? '');

  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 20 });
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const clock = { now: () => sim.clock.now() };
    deps = {
      cluster: controlCluster(createKubeClient(kc), { namespace: 'kubemaint', now: clock.now }),
      notifier: { notify: async () => undefined },
      clusterName: 'sim',
      settings: testControlSettings(),
      clock,
      randomBytes: (n) => new Uint8Array(randomBytes(n)),
    };
    await annotate('node-1', JSON.stringify(old('r-0001a1', 'node-1', 'approved')));
    await annotate('node-3', JSON.stringify(old('r-0003a3', 'node-3', 'running')));
    await annotate('node-6', JSON.stringify(old('r-0006a6', 'node-6', 'done')));
    await annotate('node-4', '{not json');
    await runTick(deps, { skewScan: true });
  });
  after(async () => sim.close());

  it('carries an approved request over as a proposal, without its approvals, once', async () => {
    const carried = await requestReader(sim.kubeconfigPath).byId('r-0001a1');
    assert.equal(carried?.state, 'proposed');
    assert.deepEqual(carried?.approvals, []);
    assert.match(carried?.history.at(-1)?.note ?? '', /its approvals were not.*approve it again/);
    assert.equal(await annotationOf('node-1'), undefined, 'the annotation is gone');
    await runTick(deps, { skewScan: true });
    const all = await requestReader(sim.kubeconfigPath).all();
    assert.equal(all.filter((r) => r.id === 'r-0001a1').length, 1, 'carried over once');
  });

  it('refuses a running one, leaves it in place and says how to finish it', async () => {
    assert.equal(await requestReader(sim.kubeconfigPath).byId('r-0003a3'), undefined);
    assert.ok(await annotationOf('node-3'), 'left for the earlier release to finish');
    const [message] = await eventsOf('node-3');
    assert.match(
      message ?? '',
      /r-0003a3 was running .*kubectl annotate node node-3 kubemaint.io\/request-/,
    );
  });

  it('keeps an ended one for its history, and removes an unreadable one with an Event', async () => {
    assert.equal((await requestReader(sim.kubeconfigPath).byId('r-0006a6'))?.state, 'done');
    assert.equal(await annotationOf('node-4'), undefined);
    assert.match(
      (await eventsOf('node-4'))[0] ?? '',
      /removed an unreadable kubemaint.io\/request/,
    );
  });
});
