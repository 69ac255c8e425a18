/**
 * A node that goes silent while its executor drains it (powered off, crashed, cut off): the executor's
 * pod is on it, so its Job stays active for as long as the node is silent and nothing else would end
 * the request. The tick waits out the action's node timeout, then fails the request and leaves the node
 * cordoned (core/node-lost.ts). The real VM's power cut is test/node/sudden-power-cut.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import { LABEL_STATE } from '../../../src/core/names.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { requestOn } from '../../support/in-process-executor.js';
import { requestReader, runningRequest } from '../../support/requests.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const MIN = 60_000;

describe('a node lost while its executor runs', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  /** node-N running request r-…, its Job active, the node silent since `silentMinutes` ago. */
  const lose = async (node: string, id: string, silentMinutes: number) => {
    const now = sim.clock.now();
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    const running = runningRequest(id, node, new Date(now.getTime() - 40 * MIN), {
      slot: 'kubemaint-slot-0',
    });
    await requestReader(sim.kubeconfigPath).seed(running);
    // Its kubelet is gone with the machine; the node lifecycle controller said so at the time.
    sim.admin.stopKubelet(node);
    sim.store.mutate(R.nodes, undefined, node, (n) => {
      n.spec = { ...n.spec, unschedulable: true };
      n.metadata.labels = { ...n.metadata.labels, [LABEL_STATE]: 'running' };
      const status = n.status as {
        conditions: { type: string; status: string; lastTransitionTime?: string }[];
      };
      status.conditions = status.conditions.map((c) =>
        c.type === 'Ready'
          ? { ...c, status: 'Unknown', lastTransitionTime: at(-silentMinutes * MIN) }
          : c,
      );
    });
  };

  const deps = (): TickDeps => {
    const base = testControlDeps(sim, {
      settings: testControlSettings({ nodeTimeoutMs: { reboot: 20 * MIN, upgrade: 20 * MIN } }),
    });
    // The Job's pod is on the silent node: the Job stays active.
    return {
      ...base,
      cluster: { ...base.cluster, getJob: async (name) => ({ name, phase: 'active' }) },
    };
  };

  const cordoned = (node: string) =>
    (sim.store.get(R.nodes, undefined, node) as { spec?: { unschedulable?: boolean } }).spec
      ?.unschedulable === true;

  it('silent for less than the node timeout: the request keeps running', async () => {
    await lose('node-2', 'r-10571a', 5);
    const report = await runTick(deps());
    assert.match(report.reconciled.join('\n'), /^node-2: .*executor running$/m);
    assert.equal(requestOn(sim, 'node-2')?.state, 'running');
  });

  it('silent for longer: failed, saying the node was lost and that no host command ran, left cordoned', async () => {
    await lose('node-3', 'r-10571b', 30);
    const report = await runTick(deps());
    assert.match(report.reconciled.join('\n'), /^node-3: .*node lost while running$/m);
    const request = requestOn(sim, 'node-3');
    assert.equal(request?.state, 'failed');
    assert.match(
      request?.failure ?? '',
      /^node stopped reporting \(powered off, crashed or cut off\) for \d+m\d*s? while the executor worked on it, before any host command: kubemaint ran none; node is NotReady \(Ready=Unknown\), .*; left cordoned for a person to look at$/,
    );
    assert.equal(cordoned('node-3'), true, 'its state is unknown: it stays cordoned');
    const events = sim.store
      .list(R.events)
      .filter(
        (e) => e['reason'] === 'KubemaintFailed' && String(e['message']).startsWith('r-10571b:'),
      );
    assert.equal(events.length, 1, 'the people are told, on the node');
  });
});
