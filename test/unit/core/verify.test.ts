import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { verifyNode } from '../../../src/core/verify.js';

const base: MaintenanceRequest = {
  id: 'r-000001',
  node: 'node-1',
  action: 'reboot',
  state: 'verifying',
  reason: 'test',
  requestedBy: 'detector',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  approvals: [],
  history: [],
  bootIdBefore: 'boot-aaaaaaaa',
};
const upgrade: MaintenanceRequest = {
  ...base,
  action: 'upgrade',
  targetVersion: 'v1.31.4',
  kubeletVersionBefore: 'v1.30.9',
};
const since = new Date('2026-01-01T00:10:00Z');
const at = (minutes: number) => new Date(since.getTime() + minutes * 60_000);
const TIMEOUT = 15 * 60_000;

describe('verifyNode', () => {
  const cases = [
    {
      why: 'new bootID and Ready proves a reboot',
      req: base,
      node: { ready: 'True', bootId: 'boot-bbbbbbbb', kubeletVersion: 'v1.31.0' },
      min: 3,
      want: 'proven',
    },
    {
      why: 'same bootID waits',
      req: base,
      node: { ready: 'True', bootId: 'boot-aaaaaaaa', kubeletVersion: 'v1.31.0' },
      min: 3,
      want: 'waiting',
    },
    {
      why: 'new bootID but NotReady waits',
      req: base,
      node: { ready: 'Unknown', bootId: 'boot-bbbbbbbb', kubeletVersion: 'v1.31.0' },
      min: 3,
      want: 'waiting',
    },
    {
      why: 'same bootID after the timeout fails',
      req: base,
      node: { ready: 'True', bootId: 'boot-aaaaaaaa', kubeletVersion: 'v1.31.0' },
      min: 16,
      want: 'failed',
    },
    {
      why: 'an empty bootID is not proof',
      req: base,
      node: { ready: 'True', bootId: '', kubeletVersion: 'v1.31.0' },
      min: 3,
      want: 'waiting',
    },
    {
      why: 'no recorded bootID cannot be proven',
      req: { ...base, bootIdBefore: undefined },
      node: { ready: 'True', bootId: 'x', kubeletVersion: 'v1' },
      min: 1,
      want: 'failed',
    },
    {
      why: 'target kubelet and Ready proves an upgrade',
      req: upgrade,
      node: { ready: 'True', bootId: 'boot-aaaaaaaa', kubeletVersion: 'v1.31.4' },
      min: 2,
      want: 'proven',
    },
    {
      why: 'a distribution suffix still matches the target',
      req: upgrade,
      node: { ready: 'True', bootId: 'b', kubeletVersion: 'v1.31.4-eks-1a2b3c' },
      min: 2,
      want: 'proven',
    },
    {
      why: 'old kubelet waits',
      req: upgrade,
      node: { ready: 'True', bootId: 'b', kubeletVersion: 'v1.30.9' },
      min: 2,
      want: 'waiting',
    },
    {
      why: 'old kubelet after the timeout fails',
      req: upgrade,
      node: { ready: 'True', bootId: 'b', kubeletVersion: 'v1.30.9' },
      min: 20,
      want: 'failed',
    },
    {
      why: 'a missing node waits, then fails',
      req: base,
      node: undefined,
      min: 3,
      want: 'waiting',
    },
    {
      why: 'a missing node after the timeout fails',
      req: base,
      node: undefined,
      min: 30,
      want: 'failed',
    },
  ] as const;
  for (const c of cases) {
    it(c.why, () => {
      const outcome = verifyNode(c.req, c.node, since, TIMEOUT, at(c.min));
      assert.equal(outcome.result, c.want);
    });
  }
  it('a failure says what state the node is in', () => {
    const outcome = verifyNode(
      base,
      { ready: 'Unknown', bootId: 'boot-aaaaaaaa', kubeletVersion: 'v1.31.0' },
      since,
      TIMEOUT,
      at(20),
    );
    assert.equal(outcome.result, 'failed');
    assert.match(
      outcome.result === 'failed' ? outcome.message : '',
      /NotReady \(Ready=Unknown\).*bootID boot-aaa/,
    );
  });
});
