/**
 * The one read behind `kubemaint status`, `/metrics` and the status page (issue 19): what it reads,
 * and the slots and marks it derives.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFleetView, stateCounts, type FleetDeps } from '../../../src/app/control/fleet-view.js';
import type { NodeView, SlotView } from '../../../src/app/control/ports.js';
import { compileSchedule } from '../../../src/core/windows.js';
import { fleetRequest } from '../../fakes/fleet.js';

const node = (name: string, extra: Partial<NodeView> = {}): NodeView => ({
  name,
  uid: `uid-${name}`,
  resourceVersion: '1',
  unschedulable: false,
  bootId: 'boot-1',
  kubeletVersion: 'v1.31.4',
  ready: 'True',
  labels: {},
  annotations: {},
  conditions: {},
  ...extra,
});

const compiled = compileSchedule({
  freezes: [{ from: '2026-11-01T00:00Z', to: '2026-11-02T00:00Z', reason: 'launch' }],
});
assert.ok(compiled.ok);
const frozen = compiled;

/** A cluster that answers from fixed lists and records what it was asked. */
function deps(options: { nodes: NodeView[]; slots: SlotView[]; concurrency: number }) {
  const asked: string[] = [];
  const withRequest = options.nodes.filter((n) => n.request);
  const fleet: FleetDeps = {
    cluster: {
      listNodes: (selector) => {
        asked.push(`listNodes ${selector ?? '(all)'}`);
        return Promise.resolve(
          selector
            ? options.nodes.filter((n) => n.labels['example.com/reboot'] === 'true')
            : options.nodes,
        );
      },
      listRequestNodes: (scope) => {
        asked.push(`listRequestNodes ${scope}`);
        return Promise.resolve(withRequest);
      },
      listRequests: () => {
        asked.push('listRequests');
        return Promise.resolve(withRequest.map((n) => n.request!).reverse());
      },
      listSlots: () => Promise.resolve(options.slots),
      readPause: () => Promise.resolve({ paused: true, by: 'k8s:alice', reason: 'launch day' }),
    },
    settings: {
      cluster: 'prod',
      detection: {
        rebootLabel: 'example.com/reboot',
        conditionTypes: ['KernelUpdate'],
      } as unknown as FleetDeps['settings']['detection'],
      lock: { concurrency: options.concurrency, pools: {} },
      schedule: frozen.schedule,
      timeZone: 'UTC',
    },
    clock: { now: () => new Date('2026-11-01T12:00:00Z') },
  };
  return { fleet, asked };
}

describe('readFleetView', () => {
  const nodes = [
    node('node-10', { labels: { 'example.com/reboot': 'true' } }),
    node('node-2', {
      conditions: { KernelUpdate: 'True' },
      request: fleetRequest('node-2', 'done', {
        createdAt: '2026-10-31T09:00:00.000Z',
        updatedAt: '2026-11-01T10:00:00.000Z',
      }),
    }),
    node('node-3', {
      request: fleetRequest('node-3', 'proposed', {
        createdAt: '2026-11-01T05:00:00.000Z',
        updatedAt: '2026-11-01T11:00:00.000Z',
      }),
    }),
    node('node-4', { labels: { 'kubemaint.io/reboot-required': 'true' } }),
  ];

  it('every configured slot, free ones too; another of ours only while held', async () => {
    const { fleet } = deps({
      nodes,
      concurrency: 3,
      slots: [
        { name: 'kubemaint-slot-1', holder: 'node-3/r-node-3' },
        { name: 'kubemaint-slot-5', holder: 'node-9/r-old' },
        { name: 'kubemaint-slot-7', holder: '' },
      ],
    });
    const view = await readFleetView(fleet);
    assert.deepEqual(
      view.slots.map((s) => `${s.name}=${s.holder}`),
      [
        'kubemaint-slot-0=',
        'kubemaint-slot-1=node-3/r-node-3',
        'kubemaint-slot-2=',
        'kubemaint-slot-5=node-9/r-old',
      ],
    );
  });

  it('marked by the configured label or condition; requests newest first; pause and window', async () => {
    const { fleet, asked } = deps({ nodes, concurrency: 1, slots: [] });
    const view = await readFleetView(fleet);
    assert.deepEqual(asked.sort(), ['listNodes example.com/reboot=true', 'listRequestNodes all']);
    assert.deepEqual(
      view.nodes.map((n) => `${n.name}:${n.marked}`),
      // Marked ones and those with a request, as people count (node-2 before node-10); node-4 is
      // marked with a label this config does not use, and was not read.
      ['node-2:true', 'node-3:false', 'node-10:true'],
    );
    assert.deepEqual(
      view.requests.map((r) => r.id),
      ['r-node-3', 'r-node-2'],
    );
    assert.equal(view.history, undefined);
    assert.deepEqual(view.pause, { paused: true, by: 'k8s:alice', reason: 'launch day' });
    assert.equal(view.window.open, false);
    assert.match(view.window.line, /^frozen: launch/);
    assert.equal(view.cluster, 'prod');
    assert.equal(view.at, '2026-11-01T12:00:00.000Z');
  });

  it('for the status page: every node, and every request oldest first', async () => {
    const { fleet, asked } = deps({ nodes, concurrency: 1, slots: [] });
    const view = await readFleetView(fleet, { allNodes: true, history: true });
    assert.ok(asked.includes('listNodes (all)'));
    assert.deepEqual(
      view.nodes.map((n) => n.name),
      ['node-2', 'node-3', 'node-4', 'node-10'],
    );
    assert.deepEqual(
      view.history?.map((r) => r.id),
      ['r-node-2', 'r-node-3'],
    );
  });

  it('counts every state, 0 when none', () => {
    const counts = stateCounts({
      requests: [fleetRequest('a', 'done'), fleetRequest('b', 'done'), fleetRequest('c', 'failed')],
    });
    assert.equal(counts.done, 2);
    assert.equal(counts.failed, 1);
    assert.equal(counts.proposed, 0);
  });
});
