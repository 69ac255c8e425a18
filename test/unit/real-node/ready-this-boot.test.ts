/**
 * `up` waits for Ready from the VM's current boot: a Node kept in etcd from an earlier run still says
 * Ready (until the node controller's grace period runs out), which once made `up` report a node Ready
 * 8 s after its VM started, long before its kubelet ran.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromThisBoot, type NodeView } from '../../../scripts/real-node/nodes.js';

const view = (bootID?: string): NodeView => ({
  registered: true,
  ready: true,
  reason: 'Ready=True KubeletReady',
  bootID,
});

describe('a Node status from this boot', () => {
  it('the bootID the Node had before the VM started is the previous boot', () => {
    assert.equal(fromThisBoot(view('61d80faf'), '61d80faf'), false);
  });

  it('a new bootID is this boot', () => {
    assert.equal(fromThisBoot(view('03d62ad4'), '61d80faf'), true);
  });

  it('a Node registered for the first time is this boot', () => {
    assert.equal(fromThisBoot(view('03d62ad4'), undefined), true);
  });

  it('no bootID yet is not', () => {
    assert.equal(fromThisBoot(view(undefined), undefined), false);
  });
});
