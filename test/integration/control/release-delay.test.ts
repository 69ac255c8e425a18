/**
 * `slot.releaseDelay` (kured --lock-release-delay, SUC postCompleteDelay, AKS node soak): a node
 * proven back goes back into service at once, but its slot stays taken for the delay, so the next
 * node waits; then the slot is handed on and the request ends done.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  approveRequest,
  listRequests,
  requestMaintenance,
} from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { LABEL_STATE } from '../../../src/core/names.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { requestReader } from '../../support/requests.js';
import { requestOn } from '../../support/in-process-executor.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
const DELAY_MS = 10 * 60_000;

describe('slot.releaseDelay holds the slot after a node is back', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  it('uncordons at once, keeps the next node waiting for the delay, then hands the slot on', async () => {
    // The tick's clock: the sim's, until pinned relative to when the node was proven back (the sim
    // runs a minute of cluster time a wall second: a slow machine must not move the judgement).
    let pinned: Date | undefined;
    const base = testControlDeps(sim, {
      settings: testControlSettings({
        lock: { concurrency: 1, pools: {}, releaseDelayMs: DELAY_MS },
      }),
    });
    const deps = {
      ...base,
      clock: { now: () => pinned ?? sim.clock.now() },
    };
    // node-1 rebooted and is Ready with a new boot id: the executor's part is over.
    const now = sim.clock.now().getTime();
    const at = (ms: number) => new Date(ms).toISOString();
    const rebooted: MaintenanceRequest = {
      id: 'r-5a5a5a',
      node: 'node-1',
      action: 'reboot',
      state: 'verifying',
      reason: 'kernel',
      requestedBy: alice.id,
      createdAt: at(now - 30 * 60_000),
      updatedAt: at(now - 60_000),
      approvals: [{ by: alice.id, at: at(now - 29 * 60_000) }],
      history: [],
      cordonedByUs: true,
      wasCordoned: false,
      bootIdBefore: 'boot-before-the-reboot',
      hostCommandIssuedAt: at(now - 5 * 60_000),
      announced: ['host'],
    };
    await requestReader(sim.kubeconfigPath).seed(rebooted);
    sim.store.mutate(R.nodes, undefined, 'node-1', (n) => {
      n.spec = { ...n.spec, unschedulable: true };
      n.metadata.labels = { ...n.metadata.labels, [LABEL_STATE]: 'verifying' };
    });
    const next = await requestMaintenance(deps, { node: 'node-3', action: 'reboot', by: alice });
    assert.ok(next.ok, next.message);
    await approveRequest(deps, next.request!.id, alice);

    await runTick(deps);
    const soaking = requestOn(sim, 'node-1')!;
    assert.equal(soaking.state, 'verifying', 'still holding its slot');
    assert.match(soaking.proven?.proof ?? '', /^bootID boot-bef → [0-9a-f]{8}, Ready$/);
    assert.notEqual(
      sim.store.get(R.nodes, undefined, 'node-1')?.spec?.['unschedulable'],
      true,
      'back in service at once',
    );
    assert.ok(base.events.some((e) => e.kind === 'back' && e.node === 'node-1'));
    const waiting = (await listRequests(deps)).find((r) => r.node === 'node-3')!;
    assert.equal(waiting.state, 'approved');
    assert.deepEqual(waiting.blockedReasons, ['all 1 slots in use'], 'node-1 holds it');

    const provenAt = Date.parse(soaking.proven!.at);
    pinned = new Date(provenAt + DELAY_MS - 60_000);
    await runTick(deps);
    assert.equal(requestOn(sim, 'node-1')?.state, 'verifying', 'a minute short of the delay');
    assert.equal(requestOn(sim, 'node-3')?.state, 'approved');

    pinned = new Date(provenAt + DELAY_MS + 1_000);
    const report = await runTick(deps);
    const finished = requestOn(sim, 'node-1')!;
    assert.equal(finished.state, 'done');
    assert.equal(finished.proven, undefined);
    assert.ok(base.events.some((e) => e.kind === 'done' && e.node === 'node-1'));
    assert.ok(
      report.dispatched.some((d) => d.startsWith('node-3: started')),
      `the slot went to node-3: ${report.dispatched.join('; ')}`,
    );
  });
});
