/**
 * Which node changes are passed on at once by serve's watches (issue 20): a node Ready again with
 * another boot id or kubelet version, or Ready again at all. A label, a cordon or the node going
 * down waits for its burst to end like any other change.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeBack, nodeFingerprint } from '../../../../src/adapters/kube/watch-fingerprints.js';

const node = (o: { ready?: string; boot?: string; kubelet?: string; label?: string } = {}) =>
  nodeFingerprint({
    metadata: { name: 'n1', labels: o.label ? { 'kubemaint.io/state': o.label } : {} },
    status: {
      conditions: [{ type: 'Ready', status: o.ready ?? 'True' }],
      nodeInfo: { bootID: o.boot ?? 'boot-1', kubeletVersion: o.kubelet ?? 'v1.31.4' },
    },
  } as never);

describe('a node back', () => {
  it('Ready with a new boot id is back', () => {
    assert.equal(nodeBack(node({ ready: 'Unknown' }), node({ boot: 'boot-2' })), true);
    assert.equal(nodeBack(node(), node({ boot: 'boot-2' })), true);
  });
  it('Ready with a new kubelet version is back', () => {
    assert.equal(nodeBack(node(), node({ kubelet: 'v1.32.0' })), true);
  });
  it('Ready again with the same boot id is back (a kubelet restart, a network gap)', () => {
    assert.equal(nodeBack(node({ ready: 'False' }), node()), true);
  });
  it('a new boot id not yet Ready is not', () => {
    assert.equal(nodeBack(node(), node({ ready: 'False', boot: 'boot-2' })), false);
  });
  it('going down, a label or staying Ready is not', () => {
    assert.equal(nodeBack(node(), node({ ready: 'Unknown' })), false);
    assert.equal(nodeBack(node(), node({ label: 'verifying' })), false);
  });
});
