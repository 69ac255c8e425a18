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

describe('verifyNode: a reboot the reporter agent asked for', () => {
  const issued = { ...base, hostCommandIssuedAt: '2026-01-01T00:10:00Z' };
  const back = { ready: 'True', bootId: 'boot-bbbbbbbb', kubeletVersion: 'v1.31.0' };
  const cases: {
    why: string;
    mark: { since?: string } | undefined;
    min: number;
    want: 'proven' | 'waiting';
    warning?: RegExp;
  }[] = [
    {
      why: 'waits, back and Ready, until the agent clears the mark that asked for it',
      mark: { since: '2026-01-01T00:00:00Z' },
      min: 3,
      want: 'waiting',
    },
    { why: 'is proven once the agent cleared its mark', mark: undefined, min: 3, want: 'proven' },
    {
      why: 'is proven at once when the agent marked the node again after the reboot (a new need)',
      mark: { since: '2026-01-01T00:12:00Z' },
      min: 3,
      want: 'proven',
    },
    {
      why: 'a mark without a time counts as the one that asked',
      mark: {},
      min: 3,
      want: 'waiting',
    },
    {
      why: 'is proven with a warning when the agent keeps its mark past the timeout',
      mark: { since: '2026-01-01T00:00:00Z' },
      min: 16,
      want: 'proven',
      warning: /still reports reboot-required 15m after the reboot .* proposed again/,
    },
  ];
  for (const c of cases) {
    it(c.why, () => {
      const outcome = verifyNode(issued, back, since, TIMEOUT, at(c.min), c.mark);
      assert.equal(outcome.result, c.want);
      const warning = outcome.result === 'proven' ? outcome.warning : undefined;
      if (c.warning) assert.match(warning ?? '', c.warning);
      else assert.equal(warning, undefined);
    });
  }
  it('an upgrade does not wait for the agent', () => {
    const outcome = verifyNode(
      { ...upgrade, hostCommandIssuedAt: issued.hostCommandIssuedAt },
      { ...back, kubeletVersion: 'v1.31.4' },
      since,
      TIMEOUT,
      at(2),
      { since: '2026-01-01T00:00:00Z' },
    );
    assert.equal(outcome.result, 'proven');
  });
});
