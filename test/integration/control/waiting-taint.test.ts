/**
 * `waitingTaint` (kured --prefer-no-schedule-taint) on the sim, through the real kube adapter: a
 * node whose request waits (proposed, approved) carries `<key>:PreferNoSchedule`; the taint goes
 * when the request starts running and on every other end (rejected, cancelled, expired, failed);
 * other taints on the node stay; and a skew scan corrects what a crash or an earlier config left.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  approveRequest,
  cancelRequest,
  rejectRequest,
  requestMaintenance,
} from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import type { ControlSettings } from '../../../src/app/control/settings.js';
import { MERGE_PATCH } from '../../../src/adapters/kube/nodes.js';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { requestReader } from '../../support/requests.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const KEY = 'kubemaint.io/waiting-for-maintenance';
const PERSONS = { taint: { key: 'example.com/gpu', value: 'true', effect: 'NoSchedule' } };
const alice = { kind: 'person', id: 'k8s:alice' } as const;
const bob = { kind: 'person', id: 'k8s:bob' } as const;

describe('the waiting taint follows each request', () => {
  let sim: TestSim;
  let pinned: Date | undefined;
  const depsWith = (overrides: Partial<ControlSettings> = {}) => {
    const base = testControlDeps(sim, {
      settings: testControlSettings({
        waitingTaint: { enabled: true, key: KEY },
        lock: { concurrency: 10, pools: {} },
        ...overrides,
      }),
    });
    return { ...base, clock: { now: () => pinned ?? sim.clock.now() } };
  };
  const taints = async (node: string) =>
    ((await sim.core.readNode({ name: node })).spec?.taints ?? []).map(
      (t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`,
    );
  const waiting = async (node: string) => (await taints(node)).includes(`${KEY}:PreferNoSchedule`);
  const ask = async (deps: ReturnType<typeof depsWith>, node: string) => {
    const asked = await requestMaintenance(deps, { node, action: 'reboot', by: alice });
    assert.ok(asked.ok, asked.message);
    return asked.request!.id;
  };

  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
    // A person's taint on node-1: kubemaint's writes must leave it as it is.
    await sim.core.patchNode(
      { name: 'node-1', body: { spec: { taints: [PERSONS.taint] } } },
      MERGE_PATCH,
    );
  });
  after(async () => sim.close());

  it('taints a proposed node, keeps it while approved, and removes it when the request runs', async () => {
    const deps = depsWith();
    const id = await ask(deps, 'node-1');
    assert.deepEqual(await taints('node-1'), [
      'example.com/gpu=true:NoSchedule',
      `${KEY}:PreferNoSchedule`,
    ]);
    await approveRequest(deps, id, bob);
    assert.ok(await waiting('node-1'), 'still waiting for its turn');
    const report = await runTick(deps);
    assert.ok(
      report.dispatched.some((line) => line.startsWith('node-1: started')),
      report.dispatched.join('; '),
    );
    assert.equal((await requestReader(sim.kubeconfigPath).byId(id))?.state, 'running');
    assert.deepEqual(
      await taints('node-1'),
      ['example.com/gpu=true:NoSchedule'],
      'the executor cordons now',
    );
  });

  it('removes it when a request is rejected', async () => {
    const deps = depsWith();
    const id = await ask(deps, 'node-3');
    assert.ok(await waiting('node-3'));
    const rejected = await rejectRequest(deps, id, bob, 'not today');
    assert.ok(rejected.ok, rejected.message);
    assert.equal(await waiting('node-3'), false);
  });

  it('removes it when an approved request is cancelled', async () => {
    const deps = depsWith();
    const id = await ask(deps, 'node-4');
    await approveRequest(deps, id, bob);
    assert.ok(await waiting('node-4'));
    const cancelled = await cancelRequest(deps, id, alice, 'changed my mind');
    assert.ok(cancelled.ok, cancelled.message);
    assert.equal(await waiting('node-4'), false);
  });

  it('removes it when a request expires', async () => {
    const deps = depsWith();
    const id = await ask(deps, 'node-5');
    assert.ok(await waiting('node-5'));
    pinned = new Date(sim.clock.now().getTime() + 73 * 3_600_000);
    try {
      await runTick(deps);
    } finally {
      pinned = undefined;
    }
    assert.equal((await requestReader(sim.kubeconfigPath).byId(id))?.state, 'expired');
    assert.equal(await waiting('node-5'), false);
  });

  it('removes it when an approved request fails before it runs', async () => {
    const deps = depsWith();
    const id = await ask(deps, 'node-2');
    const reader = requestReader(sim.kubeconfigPath);
    // Approved in its status only, with no decision object behind it: dispatch fails it.
    const stored = (await reader.byId(id))!;
    await reader.put({
      ...stored,
      state: 'approved',
      approvals: [{ by: 'k8s:bob', at: new Date().toISOString() }],
    });
    assert.ok(await waiting('node-2'));
    await runTick(deps);
    assert.equal((await reader.byId(id))?.state, 'failed');
    assert.equal(await waiting('node-2'), false);
  });

  it('a skew scan removes a taint no waiting request explains, and adds a missing one', async () => {
    const deps = depsWith();
    // As a crash between a request's write and its node's would leave them.
    await sim.core.patchNode(
      { name: 'node-3', body: { spec: { taints: [{ key: KEY, effect: 'PreferNoSchedule' }] } } },
      MERGE_PATCH,
    );
    const id = await ask(deps, 'node-6');
    await sim.core.patchNode({ name: 'node-6', body: { spec: { taints: null } } }, MERGE_PATCH);
    const report = await runTick(deps, { skewScan: true });
    assert.deepEqual([...(report.taints ?? [])].sort(), [
      'node-3: waiting taint removed (its request is rejected)',
      'node-6: waiting taint added',
    ]);
    assert.equal(await waiting('node-3'), false);
    assert.ok(await waiting('node-6'));
    assert.equal((await requestReader(sim.kubeconfigPath).byId(id))?.state, 'proposed');
  });

  it('turned off, a skew scan takes the taints away and nothing adds them', async () => {
    const deps = depsWith({ waitingTaint: { enabled: false, key: KEY } });
    const report = await runTick(deps, { skewScan: true });
    // node-6's request still waits; so do the ones detection proposed for the demo's marked nodes.
    assert.ok(report.taints?.includes('node-6: waiting taint removed (waitingTaint is off)'));
    for (const node of (await sim.core.listNode()).items)
      assert.equal(await waiting(node.metadata!.name!), false, node.metadata!.name);
    assert.deepEqual(await taints('node-1'), ['example.com/gpu=true:NoSchedule']);
    // Proposals go on with it off, untainted.
    const id = await ask(deps, 'node-3');
    assert.equal((await requestReader(sim.kubeconfigPath).byId(id))?.state, 'proposed');
    assert.equal(await waiting('node-3'), false);
  });
});
