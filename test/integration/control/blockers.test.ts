/**
 * Issue 5, "each blocker keeps a request waiting with the reason shown, and it proceeds once the
 * reason is gone": a window that is closed or closes too soon, a freeze, a firing alert (and an
 * alert source that throws: fail closed), a blocking pod, a paused cluster and a PDB that would
 * refuse. Each case approves a request on its own node through the commands, ticks, checks the
 * reason in what `status` lists, removes the cause, and ticks again to a started executor Job.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  approveRequest,
  listRequests,
  requestMaintenance,
  setPause,
} from '../../../src/app/control/commands.js';
import type { AlertsPort } from '../../../src/app/control/ports.js';
import type { ControlSettings } from '../../../src/app/control/settings.js';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import { compileSchedule, type ScheduleSpec } from '../../../src/core/windows.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

const alice = { kind: 'person', id: 'k8s:alice' } as const;

function schedule(spec: ScheduleSpec): ControlSettings['schedule'] {
  const compiled = compileSchedule(spec);
  assert.ok(compiled.ok);
  return compiled.schedule;
}

/** A clock the test moves by hand (the policy's "now"; the sim keeps its own time). */
function fakeClock(iso: string) {
  let now = new Date(iso);
  return { now: () => now, set: (at: string) => void (now = new Date(at)) };
}

describe('blockers keep an approved request waiting, then let it go', () => {
  let sim: TestSim;
  let nodes: string[];
  let next = 0;

  before(async () => {
    sim = await startTestSim({ scenario: 'fleet', nodes: 9, podsPerNode: 2, scale: 20 });
    nodes = sim.store
      .list(R.nodes)
      .map((n) => n.metadata.name ?? '')
      .sort();
  });
  after(async () => sim.close());

  const settings = (overrides: Partial<ControlSettings> = {}) =>
    testControlSettings({ lock: { concurrency: 20, pools: {} }, ...overrides });

  /** Approve a reboot of the next unused node, tick, and return what `status` shows for it. */
  async function blockedOn(deps: TickDeps) {
    const node = nodes[next++]!;
    const proposed = await requestMaintenance(deps, { node, action: 'reboot', by: alice });
    assert.ok(proposed.ok, proposed.message);
    const approved = await approveRequest(deps, proposed.request!.id, alice);
    assert.equal(approved.request?.state, 'approved');
    const report = await runTick(deps);
    const request = (await listRequests(deps)).find((r) => r.node === node)!;
    assert.equal(request.state, 'approved', `still waiting: ${report.dispatched.join('; ')}`);
    return { node, id: request.id, reasons: request.blockedReasons ?? [] };
  }

  async function proceeds(deps: TickDeps, node: string): Promise<void> {
    const report = await runTick(deps);
    assert.ok(
      report.dispatched.some((d) => d.startsWith(`${node}: started`)),
      `dispatched: ${report.dispatched.join('; ')}`,
    );
    const request = (await listRequests(deps)).find((r) => r.node === node)!;
    assert.equal(request.state, 'running');
    assert.equal(request.blockedReasons, undefined, 'the reasons are cleared once it starts');
  }

  it('a closed window, then one closing before the node would be done, then an open one', async () => {
    const clock = fakeClock('2026-01-05T08:00:00Z');
    const deps = {
      ...testControlDeps(sim, {
        settings: settings({
          schedule: schedule({
            windows: [{ days: ['mon'], start: '10:00', end: '12:00', timezone: 'UTC' }],
          }),
        }),
      }),
      clock,
    };
    const { node, reasons } = await blockedOn(deps);
    assert.ok(
      reasons.some((r) => /^window closed; opens Mon 10:00/.test(r)),
      reasons.join('; '),
    );
    clock.set('2026-01-05T11:55:00Z');
    await runTick(deps);
    const closing = (await listRequests(deps)).find((r) => r.node === node)!;
    assert.equal(closing.state, 'approved');
    assert.ok(
      closing.blockedReasons?.some((r) => /window closes .* in 5m; .* needs about 10m/.test(r)),
      closing.blockedReasons?.join('; '),
    );
    clock.set('2026-01-05T10:30:00Z');
    await proceeds(deps, node);
  });

  it('a freeze, until it ends', async () => {
    const clock = fakeClock('2026-12-24T12:00:00Z');
    const deps = {
      ...testControlDeps(sim, {
        settings: settings({
          schedule: schedule({
            freezes: [{ from: '2026-12-24', to: '2026-12-26', reason: 'holidays' }],
          }),
        }),
      }),
      clock,
    };
    const { node, reasons } = await blockedOn(deps);
    assert.ok(
      reasons.some((r) => r.startsWith('freeze: holidays')),
      reasons.join('; '),
    );
    clock.set('2026-12-27T09:00:00Z');
    await proceeds(deps, node);
  });

  // kured's alert filter, match-only and firing-only are the Prometheus adapter's (it alone sees
  // alertstate): test/unit/prometheus and test/integration/prometheus/alerts-gate.test.ts.
  it('a firing alert, until it resolves', async () => {
    let firing = ['NodeDiskPressure'];
    const alerts: AlertsPort = { activeAlerts: async () => firing };
    const deps = { ...testControlDeps(sim, { settings: settings() }), alerts };
    const { node, reasons } = await blockedOn(deps);
    assert.ok(
      reasons.some((r) => r.includes('alert NodeDiskPressure')),
      reasons.join('; '),
    );
    firing = [];
    await proceeds(deps, node);
  });

  it('an alert source that cannot be read fails closed, until it answers', async () => {
    let down = true;
    const alerts: AlertsPort = {
      activeAlerts: async () => {
        if (down) throw new Error('connect ECONNREFUSED prometheus:9090');
        return [];
      },
    };
    const deps = { ...testControlDeps(sim, { settings: settings() }), alerts };
    const { node, reasons } = await blockedOn(deps);
    assert.ok(
      reasons.some((r) => r.startsWith('could not query Prometheus alerts: connect ECONNREFUSED')),
      reasons.join('; '),
    );
    down = false;
    await proceeds(deps, node);
  });

  it('a pod matching a blocking selector, until it no longer matches', async () => {
    const deps = testControlDeps(sim, {
      settings: settings({
        blockers: { podSelectors: ['backup=running'], maxUnhealthyNodes: { count: 1 } },
      }),
    });
    const node = nodes[next]!;
    await sim.core.createNamespacedPod({
      namespace: 'team-1',
      body: {
        metadata: { name: 'nightly-backup', labels: { backup: 'running' } },
        spec: { nodeName: node, containers: [{ name: 'backup', image: 'backup:1' }] },
      },
    });
    const blocked = await blockedOn(deps);
    assert.equal(blocked.node, node);
    assert.ok(
      blocked.reasons.some(
        (r) => r === 'pod team-1/nightly-backup matches blocking selector backup=running',
      ),
      blocked.reasons.join('; '),
    );
    await sim.core.patchNamespacedPod(
      {
        namespace: 'team-1',
        name: 'nightly-backup',
        body: { metadata: { labels: { backup: 'done' } } },
      },
      (await import('../../../src/adapters/kube/nodes.js')).MERGE_PATCH,
    );
    await proceeds(deps, node);
  });

  it('a pod the drain would refuse to delete, until the config lets the drain delete it', async () => {
    const strict = { force: false, deleteEmptyDirData: false, podSelector: '' };
    const deps = testControlDeps(sim, {
      settings: settings({ drain: { ...strict, skipWaitForDeleteTimeoutSeconds: 0 } }),
    });
    const node = nodes[next]!;
    await sim.core.createNamespacedPod({
      namespace: 'team-1',
      body: {
        metadata: { name: 'hand-made' },
        spec: { nodeName: node, containers: [{ name: 'debug', image: 'busybox:1' }] },
      },
    });
    const blocked = await blockedOn(deps);
    assert.equal(blocked.node, node);
    assert.ok(
      blocked.reasons.includes(
        'the drain would refuse: cannot delete Pods that declare no controller ' +
          '(set drain.force: true to override): team-1/hand-made',
      ),
      blocked.reasons.join('; '),
    );
    // Nothing was touched while it waited: the node is not cordoned.
    assert.notEqual(sim.store.get(R.nodes, undefined, node)?.spec?.['unschedulable'], true);
    const forced = testControlDeps(sim, {
      settings: settings({ drain: { ...strict, force: true, skipWaitForDeleteTimeoutSeconds: 0 } }),
    });
    await proceeds(forced, node);
  });

  it('a paused cluster, until resumed', async () => {
    const deps = testControlDeps(sim, { settings: settings() });
    await setPause(deps, true, alice, 'incident 4711');
    const { node, reasons } = await blockedOn(deps);
    assert.ok(
      reasons.some((r) => r === 'kubemaint is paused by k8s:alice: incident 4711'),
      reasons.join('; '),
    );
    await setPause(deps, false, alice);
    await proceeds(deps, node);
  });

  it('a PDB that would refuse an eviction, until it is relaxed', async () => {
    const deps = testControlDeps(sim, { settings: settings() });
    const node = nodes[next]!;
    await sim.core.createNamespacedPod({
      namespace: 'team-2',
      body: {
        metadata: { name: 'singleton', labels: { app: 'singleton' } },
        spec: { nodeName: node, containers: [{ name: 'app', image: 'app:1' }] },
      },
    });
    await sim.policy.createNamespacedPodDisruptionBudget({
      namespace: 'team-2',
      body: {
        metadata: { name: 'singleton' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'singleton' } } },
      },
    });
    await waitFor('the budget to count the pod healthy', async () => {
      const pdb = await sim.policy.readNamespacedPodDisruptionBudget({
        namespace: 'team-2',
        name: 'singleton',
      });
      return pdb.status?.currentHealthy === 1;
    });
    const blocked = await blockedOn(deps);
    assert.equal(blocked.node, node);
    assert.ok(
      blocked.reasons.some((r) =>
        /^PDB team-2\/singleton allows 0 disruptions \(pod team-2\/singleton\)/.test(r),
      ),
      blocked.reasons.join('; '),
    );
    await sim.policy.deleteNamespacedPodDisruptionBudget({
      namespace: 'team-2',
      name: 'singleton',
    });
    await proceeds(deps, node);
  });
});
