import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { markPredates, verifyNode } from '../../../src/core/verify.js';

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

describe('verifyNode: the proof, stated exactly', () => {
  const outcomeOf = (
    req: MaintenanceRequest,
    node: { ready: string; bootId: string; kubeletVersion: string } | undefined,
    now: Date,
    timeoutMs = TIMEOUT,
  ) => verifyNode(req, node, since, timeoutMs, now);
  const text = (outcome: ReturnType<typeof verifyNode>): string =>
    outcome.result === 'proven' ? outcome.proof : outcome.message;

  it('an upgraded kubelet on a node that is not Ready proves nothing: it waits, then fails', () => {
    const notReady = { ready: 'False', bootId: 'boot-aaaaaaaa', kubeletVersion: 'v1.31.4' };
    const early = outcomeOf(upgrade, notReady, at(2));
    assert.deepEqual(early, {
      result: 'waiting',
      message: 'kubelet upgraded but node not Ready yet',
    });
    const late = outcomeOf(upgrade, notReady, at(20));
    assert.deepEqual(late, {
      result: 'failed',
      message:
        'upgrade not proven within 15m: kubelet upgraded but node not Ready yet; node is NotReady (Ready=False), bootID boot-aaa, kubelet v1.31.4',
    });
  });

  it('only the target release proves an upgrade: a newer kubelet, or a request without a target, is not it', () => {
    const newer = outcomeOf(
      upgrade,
      { ready: 'True', bootId: 'b', kubeletVersion: 'v1.31.5' },
      at(2),
    );
    assert.deepEqual(newer, { result: 'waiting', message: 'kubelet still v1.31.5, want v1.31.4' });
    const { targetVersion: _none, ...untargeted } = upgrade;
    const unknown = outcomeOf(
      untargeted,
      { ready: 'True', bootId: 'b', kubeletVersion: 'v1.31.4' },
      at(2),
    );
    assert.deepEqual(unknown, { result: 'waiting', message: 'kubelet still v1.31.4, want ' });
  });

  it('the proof names what changed: the bootIDs, or the kubelet versions', () => {
    const rebooted = outcomeOf(
      base,
      { ready: 'True', bootId: 'boot-bbbbbbbb', kubeletVersion: 'v1.31.0' },
      at(3),
    );
    assert.deepEqual(rebooted, { result: 'proven', proof: 'bootID boot-aaa → boot-bbb, Ready' });
    const upgraded = outcomeOf(
      upgrade,
      { ready: 'True', bootId: 'b', kubeletVersion: 'v1.31.4' },
      at(3),
    );
    assert.deepEqual(upgraded, { result: 'proven', proof: 'kubelet v1.30.9 → v1.31.4, Ready' });
    const { kubeletVersionBefore: _unknown, ...unrecorded } = upgrade;
    assert.equal(
      text(outcomeOf(unrecorded, { ready: 'True', bootId: 'b', kubeletVersion: 'v1.31.4' }, at(3))),
      'kubelet ? → v1.31.4, Ready',
    );
  });

  it('the deadline is the timeout itself: at exactly the timeout it still waits, a moment later it fails', () => {
    const unchanged = { ready: 'True', bootId: 'boot-aaaaaaaa', kubeletVersion: 'v1.31.0' };
    const deadline = new Date(since.getTime() + TIMEOUT);
    const later = new Date(since.getTime() + TIMEOUT + 1);
    assert.deepEqual(outcomeOf(base, unchanged, deadline), {
      result: 'waiting',
      message: 'bootID unchanged (not rebooted yet)',
    });
    assert.deepEqual(outcomeOf(base, unchanged, later), {
      result: 'failed',
      message:
        'node did not come back within 15m: bootID unchanged (not rebooted yet); node is Ready, bootID boot-aaa, kubelet v1.31.0',
    });
    assert.deepEqual(outcomeOf(base, undefined, deadline), {
      result: 'waiting',
      message: 'node node-1 is not listed',
    });
    assert.deepEqual(outcomeOf(base, undefined, later), {
      result: 'failed',
      message: 'node node-1 is gone from the cluster',
    });
  });

  it('a rebooted node that is not Ready waits, then fails saying it rebooted; the timeout is told as configured (90 s is 1m30s, not a rounded 2m)', () => {
    const back = { ready: 'Unknown', bootId: 'b2', kubeletVersion: 'v1.31.0' };
    assert.deepEqual(outcomeOf(base, back, at(3)), {
      result: 'waiting',
      message: 'rebooted but not Ready yet',
    });
    assert.equal(
      text(outcomeOf(base, back, at(3), 90_000)),
      'node did not come back within 1m30s: rebooted but not Ready yet; node is NotReady (Ready=Unknown), bootID b2, kubelet v1.31.0',
    );
  });

  it('a node reporting no bootID shows "(none)"', () => {
    assert.match(
      text(outcomeOf(base, { ready: 'False', bootId: '', kubeletVersion: 'v1.31.0' }, at(20))),
      /bootID \(none\), kubelet v1\.31\.0$/,
    );
  });

  it('the reporter agent is waited for until the timeout itself, and any mark counts when no host command time was recorded', () => {
    const issued = { ...base, hostCommandIssuedAt: '2026-01-01T00:10:00Z' };
    const back = { ready: 'True', bootId: 'boot-bbbbbbbb', kubeletVersion: 'v1.31.0' };
    const mark = { since: '2026-01-01T00:00:00Z' };
    const deadline = new Date(since.getTime() + TIMEOUT);
    assert.equal(verifyNode(issued, back, since, TIMEOUT, deadline, mark).result, 'waiting');
    // A request that recorded no host command time cannot tell a new mark from the old one: it waits.
    assert.equal(
      verifyNode(base, back, since, TIMEOUT, at(3), { since: '2026-01-01T00:12:00Z' }).result,
      'waiting',
    );
  });
});

describe('verifyNode: what cannot be proven, and the agent mark that asked', () => {
  const back = { ready: 'True', bootId: 'boot-bbbbbbbb', kubeletVersion: 'v1.31.0' };

  it('a kubelet version that cannot be read is not the target: it waits for one that can', () => {
    const outcome = verifyNode(
      upgrade,
      { ...back, kubeletVersion: 'unknown' },
      since,
      TIMEOUT,
      at(2),
    );
    assert.deepEqual(outcome, {
      result: 'waiting',
      message: 'kubelet still unknown, want v1.31.4',
    });
  });

  it('a reboot without a recorded bootID fails at once and says it cannot be proven', () => {
    const { bootIdBefore: _none, ...unrecorded } = base;
    assert.deepEqual(verifyNode(unrecorded, back, since, TIMEOUT, at(1)), {
      result: 'failed',
      message: 'no bootID was recorded before the reboot: cannot prove it',
    });
  });

  it('a node back and Ready whose agent still has the mark that asked says it waits for the agent', () => {
    const issued = { ...base, hostCommandIssuedAt: '2026-01-01T00:10:00Z' };
    assert.deepEqual(
      verifyNode(issued, back, since, TIMEOUT, at(3), { since: '2026-01-01T00:00:00Z' }),
      {
        result: 'waiting',
        message: 'rebooted; waiting for the reporter agent to clear its mark',
      },
    );
  });

  it('a mark recorded at the very instant the host command was issued is the one that asked, not a new need', () => {
    // The agent can only see the host after its reboot seconds later; a mark as old as the command predates it.
    const issued = { ...base, hostCommandIssuedAt: '2026-01-01T00:10:00.000Z' };
    assert.equal(markPredates('2026-01-01T00:10:00Z', issued), true);
    assert.equal(markPredates('2026-01-01T00:10:01Z', issued), false);
    assert.equal(
      verifyNode(issued, back, since, TIMEOUT, at(3), { since: '2026-01-01T00:10:00Z' }).result,
      'waiting',
    );
  });
});
