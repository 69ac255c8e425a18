/**
 * Two people answering the same request at the same moment (two Slack clicks, a click and a CLI
 * command): both writes are conditional, one loses, and the loser decides again on what the request
 * is now instead of telling a person who got what they asked for to "look again and retry".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  approveRequest,
  rejectRequest,
  requestMaintenance,
  submitMaintenance,
} from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { requestReader } from '../../support/requests.js';
import { requestOn } from '../../support/in-process-executor.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
const bob = { kind: 'person', id: 'k8s:bob' } as const;
const carol = { kind: 'person', id: 'k8s:carol' } as const;
/** Carol asks; alice and bob answer (proposing is its own permission since issue 15). */
const proposers = { users: [carol.id], groups: [] };
const ROUNDS = 5;

describe('concurrent answers to one request', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  it('two approvers at once: both told it is approved, one approval recorded per click', async () => {
    const base = testControlSettings();
    const deps = testControlDeps(sim, {
      settings: testControlSettings({ approval: { ...base.approval, proposers } }),
    });
    for (let round = 0; round < ROUNDS; round++) {
      const node = 'node-1';
      const proposed = await requestMaintenance(deps, { node, action: 'reboot', by: carol });
      assert.ok(proposed.ok, proposed.message);
      const id = proposed.request!.id;
      const answers = await Promise.all([
        approveRequest(deps, id, alice),
        approveRequest(deps, id, bob),
      ]);
      for (const answer of answers) {
        assert.ok(answer.ok, answer.message);
        assert.match(answer.message, /is approved$/);
      }
      const request = requestOn(sim, node)!;
      assert.equal(request.state, 'approved');
      assert.equal(
        request.approvals.length,
        1,
        'the first approval suffices; the other is a no-op',
      );
      // Each click is recorded as its author's own decision object (ADR 0012); the approval that
      // counts is backed by one of them.
      const decisions = await requestReader(sim.kubeconfigPath).decisions(id);
      assert.deepEqual(decisions.map((d) => d.by).sort(), [alice.id, bob.id]);
      assert.ok(decisions.some((d) => d.name === request.approvals[0]?.record));
      await rejectRequest(deps, id, alice, 'next round').catch(() => undefined);
    }
  });

  /** alice and bob may approve; under the two-person rule a request needs both. */
  const twoPersonDeps = () =>
    testControlDeps(sim, {
      settings: testControlSettings({
        approval: {
          users: [alice.id, bob.id],
          groups: [],
          proposers,
          expiresAfterMs: 3_600_000,
          twoPersonRule: true,
        },
      }),
    });

  it('two-person rule: the first approver is told a second one is needed, the second that it is approved', async () => {
    const deps = twoPersonDeps();
    const proposed = await requestMaintenance(deps, {
      node: 'node-3',
      action: 'reboot',
      by: carol,
    });
    assert.ok(proposed.ok, proposed.message);
    const id = proposed.request!.id;
    const first = await approveRequest(deps, id, alice);
    assert.ok(first.ok, first.message);
    assert.equal(
      first.message,
      `approve by ${alice.id}: ${id} is proposed (first of two approvals; waiting for a second approver)`,
    );
    const second = await approveRequest(deps, id, bob);
    assert.equal(second.message, `approve by ${bob.id}: ${id} is approved`);
    await rejectRequest(deps, id, alice, 'next test');
  });

  it('two-person rule: two approvers at once make the two approvals it needs', async () => {
    const deps = twoPersonDeps();
    for (let round = 0; round < ROUNDS; round++) {
      const node = 'node-3';
      const proposed = await requestMaintenance(deps, { node, action: 'reboot', by: carol });
      assert.ok(proposed.ok, proposed.message);
      const id = proposed.request!.id;
      const answers = await Promise.all([
        approveRequest(deps, id, alice),
        approveRequest(deps, id, bob),
      ]);
      for (const answer of answers) assert.ok(answer.ok, answer.message);
      const request = requestOn(sim, node)!;
      assert.equal(request.state, 'approved');
      assert.deepEqual(request.approvals.map((a) => a.by).sort(), [alice.id, bob.id]);
      await rejectRequest(deps, id, alice, 'next round');
    }
  });

  it('a request withdrawn between its read and its write: that write lost a race, the tick goes on', async () => {
    // Two serves: one created a proposal that lost the creation race and withdraws it while the
    // other, seeing it without a status, accepts it (races.test.ts met this on CI). The accepting
    // write finds no object: nothing to report, nothing to fail the tick for.
    const base = testControlDeps(sim, {
      settings: testControlSettings({
        approval: { ...testControlSettings().approval, proposers },
      }),
    });
    const asked = await submitMaintenance(base, { node: 'node-6', action: 'reboot', by: carol });
    assert.ok(asked.ok, asked.message);
    const id = asked.request!.id;
    const deps = {
      ...base,
      cluster: {
        ...base.cluster,
        async writeRequest(request: MaintenanceRequest, version: string | undefined) {
          if (request.id === id) await base.cluster.withdrawRequest(id);
          return base.cluster.writeRequest(request, version);
        },
      },
    };
    const report = await runTick(deps);
    assert.ok(
      report.reconciled.includes(`node-6: intake lost a race`),
      report.reconciled.join('\n'),
    );
    assert.equal(await requestReader(sim.kubeconfigPath).byId(id), undefined, 'still withdrawn');
    assert.deepEqual(
      base.events.filter((e) => e.requestId === id),
      [],
      'nobody told of a request that is gone',
    );
  });

  it('a proposal whose status another serve wrote first: that serve decided it, the proposer lost a race', async () => {
    // A new request is two writes: the object, then its status (the status subresource drops it on
    // create). Another serve's tick in between sees it without a status and accepts it (intake).
    const settings = testControlSettings({
      approval: { ...testControlSettings().approval, proposers },
    });
    const other = testControlDeps(sim, { settings });
    const base = testControlDeps(sim, { settings });
    const deps = {
      ...base,
      cluster: {
        ...base.cluster,
        async writeRequest(request: MaintenanceRequest, version: string | undefined) {
          if (version !== undefined) return base.cluster.writeRequest(request, version);
          // The adapter's two writes, with the other serve's tick between them.
          await base.cluster.submit(request);
          const created = (await base.cluster.findRequest(request.id))!.requestVersion;
          await runTick(other);
          return base.cluster.writeRequest(request, created);
        },
      },
    };
    const asked = await requestMaintenance(deps, { node: 'node-6', action: 'reboot', by: carol });
    assert.equal(asked.ok, false, asked.message);
    assert.match(asked.message, /changed while we wrote it; look at it again/);
    const stored = await requestReader(sim.kubeconfigPath).ofNode('node-6');
    assert.equal(stored?.state, 'proposed', 'as the other serve accepted it');
    assert.deepEqual(
      other.events.filter((e) => e.requestId === stored.id).map((e) => e.kind),
      ['proposed'],
      'the serve that decided it said so',
    );
    assert.deepEqual(base.events, [], 'the proposer said nothing of a decision it did not make');
    await rejectRequest(base, stored.id, alice, 'next test');
  });
});
