/**
 * The cluster-health gates on the sim: a node that went NotReady more often than `blockers.flapping`
 * allows keeps an approved request waiting, and the reason names it (its history is kept in its own
 * annotation, so a down-and-up between two ticks still counts); after a node came back, the next
 * one waits out `blockers.soak`, and the reason says until when.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  approveRequest,
  listRequests,
  requestMaintenance,
} from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { ANN_LAST_MAINTENANCE } from '../../../src/core/names.js';
import { ANN_NOT_READY, readRecord } from '../../../src/core/not-ready-history.js';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;
const HOUR = 3_600_000;

describe('cluster-health gates: flapping nodes and the soak', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  const ready = async (node: string) =>
    (await sim.core.readNode({ name: node })).status?.conditions?.find((c) => c.type === 'Ready')
      ?.status;

  /** node goes down on its own (not kubemaint's doing) and comes back. */
  const flap = async (node: string) => {
    sim.admin.reboot(node);
    await waitFor(`${node} NotReady`, async () => (await ready(node)) !== 'True', 60_000);
    await waitFor(`${node} Ready again`, async () => (await ready(node)) === 'True', 60_000);
  };

  it('a node that flapped more than allowed keeps the next node waiting, by name', async () => {
    const deps = testControlDeps(sim, {
      settings: testControlSettings({
        blockers: {
          podSelectors: [],
          maxUnhealthyNodes: { count: 6 },
          flapping: { times: 1, withinMs: 6 * HOUR },
        },
      }),
    });
    // Paused, the request waits, while every tick still reads the fleet and keeps its history.
    await deps.cluster.writePause({ paused: true, reason: 'watching node-5' });
    const proposed = await requestMaintenance(deps, {
      node: 'node-1',
      action: 'reboot',
      by: alice,
    });
    assert.ok(proposed.ok, proposed.message);
    await approveRequest(deps, proposed.request!.id, alice);
    await runTick(deps);
    const first = readRecord(
      (await sim.core.readNode({ name: 'node-5' })).metadata?.annotations?.[ANN_NOT_READY],
    );
    assert.equal(first.status, 'True', 'the first record: Ready, no episode');
    assert.deepEqual(first.episodes, []);

    // Down and up between two ticks, twice: the Ready condition's new transition time tells.
    await flap('node-5');
    await runTick(deps);
    await flap('node-5');
    await deps.cluster.writePause({ paused: false });
    await runTick(deps);

    const record = readRecord(
      (await sim.core.readNode({ name: 'node-5' })).metadata?.annotations?.[ANN_NOT_READY],
    );
    assert.equal(record.episodes.length, 2, JSON.stringify(record));
    const waiting = (await listRequests(deps)).find((r) => r.node === 'node-1')!;
    assert.equal(waiting.state, 'approved');
    assert.deepEqual(waiting.blockedReasons, [
      'node node-5 went NotReady 2 times in the last 6h; at most 1 allowed',
    ]);
  });

  it('waits out the soak after the last node came back, then starts', async () => {
    let pinned: Date | undefined;
    const base = testControlDeps(sim, {
      settings: testControlSettings({
        blockers: { podSelectors: [], maxUnhealthyNodes: { count: 6 }, soakMs: 10 * 60_000 },
        drain: {
          force: true,
          deleteEmptyDirData: true,
          podSelector: '',
          skipWaitForDeleteTimeoutSeconds: 0,
        },
      }),
    });
    const deps = { ...base, clock: { now: () => pinned ?? sim.clock.now() } };
    const back = new Date(sim.clock.now().getTime() - 60_000);
    await deps.cluster.patchNode('node-6', {
      annotations: {
        [ANN_LAST_MAINTENANCE]: JSON.stringify({
          request: 'r-000001',
          action: 'reboot',
          at: back.toISOString(),
        }),
      },
    });
    pinned = new Date(back.getTime() + 60_000);
    await runTick(deps);
    const waiting = (await listRequests(deps)).find((r) => r.node === 'node-1')!;
    assert.equal(waiting.state, 'approved');
    assert.equal(waiting.blockedReasons?.length, 1, (waiting.blockedReasons ?? []).join('; '));
    assert.match(
      waiting.blockedReasons[0]!,
      /^soaking 10m after node-6 came back \(\w{3} \d\d:\d\d UTC\); the next node may start \w{3} \d\d:\d\d UTC$/,
    );

    pinned = new Date(back.getTime() + 10 * 60_000 + 1_000);
    await runTick(deps);
    assert.equal((await listRequests(deps)).find((r) => r.node === 'node-1')!.state, 'running');
  });
});
