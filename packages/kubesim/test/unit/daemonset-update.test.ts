import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  planRollingUpdate,
  scaledValue,
  type NodePods,
} from '../../src/controllers/daemonset-update.js';
import type { KObject } from '../../src/types.js';

const pod = (name: string, hash: string, ready: boolean): KObject => ({
  metadata: { name, labels: { 'controller-revision-hash': hash } },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const node = (name: string, ...running: KObject[]): NodePods => ({
  node: name,
  shouldRun: true,
  running,
  terminating: [],
});
const at = { hash: 'new', minReadySeconds: 0, now: Date.now() };

describe('DaemonSet rolling update plan', () => {
  it('without surge: deletes old pods while fewer than maxUnavailable nodes lack an available pod', () => {
    const nodes = [
      node('a', pod('a1', 'old', true)),
      node('b', pod('b1', 'old', true)),
      node('c', pod('c1', 'old', true)),
    ];
    assert.deepEqual(planRollingUpdate(nodes, { ...at, maxUnavailable: 1, maxSurge: 0 }), {
      remove: ['a1'],
      create: [],
    });
    assert.deepEqual(planRollingUpdate(nodes, { ...at, maxUnavailable: 2, maxSurge: 0 }).remove, [
      'a1',
      'b1',
    ]);
    // A node already down (its new pod not ready, or its old one being replaced) uses the budget.
    const busy = [node('a', pod('a2', 'new', false)), ...nodes.slice(1)];
    assert.deepEqual(planRollingUpdate(busy, { ...at, maxUnavailable: 1, maxSurge: 0 }).remove, []);
    const gone: NodePods = { ...node('a'), terminating: [pod('a1', 'old', true)] };
    assert.deepEqual(
      planRollingUpdate([gone, ...nodes.slice(1)], { ...at, maxUnavailable: 1, maxSurge: 0 })
        .remove,
      [],
    );
  });

  it('without surge: an old pod that is unavailable anyway goes at once, whatever the budget', () => {
    const nodes = [node('a', pod('a2', 'new', false)), node('b', pod('b1', 'old', false))];
    assert.deepEqual(planRollingUpdate(nodes, { ...at, maxUnavailable: 1, maxSurge: 0 }).remove, [
      'b1',
    ]);
  });

  it('with surge: starts new pods beside old ones up to maxSurge, deletes an old one once its new one is available', () => {
    const nodes = [
      node('a', pod('a1', 'old', true), pod('a2', 'new', true)),
      node('b', pod('b1', 'old', true), pod('b2', 'new', false)),
      node('c', pod('c1', 'old', true)),
      node('d', pod('d1', 'old', true)),
    ];
    assert.deepEqual(planRollingUpdate(nodes, { ...at, maxUnavailable: 0, maxSurge: 2 }), {
      remove: ['a1'],
      create: ['c'],
    });
    assert.deepEqual(
      planRollingUpdate(nodes, { ...at, maxUnavailable: 0, maxSurge: 1 }).create,
      [],
    );
  });

  it('scales percentages up against the desired count', () => {
    assert.equal(scaledValue('25%', 10), 3);
    assert.equal(scaledValue(2, 10), 2);
    assert.equal(scaledValue('0%', 10), 0);
  });
});
