/**
 * `nodeLabels` (kured --pre-reboot-node-labels / --post-reboot-node-labels, SUC postCompleteLabels):
 * `before` is on the node once its executor Job is created, ahead of the cordon; `after` once the node
 * is proven back, also on a node that was cordoned before kubemaint came (kured#1328).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approveRequest, requestMaintenance } from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { LABEL_STATE } from '../../../src/core/names.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { requestReader } from '../../support/requests.js';
import { requestOn } from '../../support/in-process-executor.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;

describe('nodeLabels before and after', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  it('sets `before` with the Job and `after` once the node is proven back', async () => {
    const deps = testControlDeps(sim, {
      settings: testControlSettings({
        nodeLabels: {
          before: { 'example.com/patching': 'true' },
          after: { 'example.com/patching': 'false', 'example.com/patched': 'kubemaint' },
        },
      }),
    });
    const labels = () => sim.store.get(R.nodes, undefined, 'node-6')?.metadata.labels ?? {};
    // Cordoned by someone else beforehand: `after` is still applied, and the cordon stays.
    sim.store.mutate(R.nodes, undefined, 'node-6', (n) => {
      n.spec = { ...n.spec, unschedulable: true };
    });
    const proposed = await requestMaintenance(deps, {
      node: 'node-6',
      action: 'reboot',
      by: alice,
    });
    assert.ok(proposed.ok, proposed.message);
    assert.equal(labels()['example.com/patching'], undefined, 'nothing before the start');
    await approveRequest(deps, proposed.request!.id, alice);
    await runTick(deps);
    assert.equal(requestOn(sim, 'node-6')?.state, 'running');
    assert.equal(labels()['example.com/patching'], 'true');

    // The executor's part, as it leaves the node: rebooted (a new boot id), Ready, verifying.
    const request = requestOn(sim, 'node-6')!;
    const at = new Date(sim.clock.now().getTime() - 60_000).toISOString();
    await requestReader(sim.kubeconfigPath).put({
      ...request,
      state: 'verifying',
      wasCordoned: true,
      bootIdBefore: 'boot-before-the-reboot',
      hostCommandIssuedAt: at,
      announced: ['host'],
    } satisfies MaintenanceRequest);
    sim.store.mutate(R.nodes, undefined, 'node-6', (n) => {
      n.metadata.labels = { ...n.metadata.labels, [LABEL_STATE]: 'verifying' };
    });
    await runTick(deps);
    assert.equal(requestOn(sim, 'node-6')?.state, 'done');
    assert.equal(labels()['example.com/patching'], 'false');
    assert.equal(labels()['example.com/patched'], 'kubemaint');
    assert.equal(
      sim.store.get(R.nodes, undefined, 'node-6')?.spec?.['unschedulable'],
      true,
      'a node cordoned before stays cordoned',
    );
  });
});
