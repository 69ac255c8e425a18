import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computePdbStatus, scaled } from '../../src/controllers/pdb-status.js';
import type { KObject } from '../../src/types.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const pod = (name: string, ready: boolean, extra: Partial<KObject['metadata']> = {}): KObject => ({
  metadata: { name, ...extra },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const pdb = (
  spec: Record<string, unknown>,
  status: Record<string, unknown> = {},
  generation = 1,
): KObject => ({
  metadata: { name: 'web', generation },
  spec,
  status,
});
const three = [pod('a', true), pod('b', true), pod('c', true)];

describe('scaled', () => {
  const cases: [number | string | undefined, number, number | undefined][] = [
    [2, 10, 2],
    ['50%', 5, 3],
    ['25%', 4, 1],
    ['3', 10, 3],
    ['x', 10, undefined],
    [undefined, 10, undefined],
  ];
  for (const [value, total, want] of cases) {
    it(`${String(value)} of ${total} → ${String(want)}`, () =>
      assert.equal(scaled(value, total), want));
  }
});

describe('computePdbStatus', () => {
  const cases: {
    why: string;
    spec: Record<string, unknown>;
    pods: KObject[];
    replicas?: number;
    want: { allowed: number; healthy: number; desired: number; expected: number };
  }[] = [
    {
      why: 'minAvailable integer counts matching pods',
      spec: { minAvailable: 2 },
      pods: three,
      want: { allowed: 1, healthy: 3, desired: 2, expected: 3 },
    },
    {
      why: 'maxUnavailable uses the controllers’ replicas',
      spec: { maxUnavailable: 1 },
      pods: three,
      replicas: 3,
      want: { allowed: 1, healthy: 3, desired: 2, expected: 3 },
    },
    {
      why: 'a percentage minAvailable rounds up',
      spec: { minAvailable: '50%' },
      pods: three,
      replicas: 3,
      want: { allowed: 1, healthy: 3, desired: 2, expected: 3 },
    },
    {
      why: 'an unready pod is not healthy',
      spec: { minAvailable: 2 },
      pods: [pod('a', true), pod('b', false), pod('c', true)],
      want: { allowed: 0, healthy: 2, desired: 2, expected: 3 },
    },
    {
      why: 'a terminating pod is not healthy',
      spec: { minAvailable: 1 },
      pods: [pod('a', true, { deletionTimestamp: '2026-01-01T11:59:00Z' }), pod('b', true)],
      want: { allowed: 0, healthy: 1, desired: 1, expected: 2 },
    },
    {
      why: 'no pods: no disruptions',
      spec: { maxUnavailable: 1 },
      pods: [],
      replicas: 0,
      want: { allowed: 0, healthy: 0, desired: 0, expected: 0 },
    },
  ];
  for (const c of cases) {
    it(c.why, () => {
      const result = computePdbStatus({
        pdb: pdb(c.spec),
        pods: c.pods,
        controllerReplicas: c.replicas,
        now: NOW,
      });
      assert.ok(result.ok);
      const {
        disruptionsAllowed,
        currentHealthy,
        desiredHealthy,
        expectedPods,
        observedGeneration,
      } = result.status;
      assert.deepEqual(
        {
          allowed: disruptionsAllowed,
          healthy: currentHealthy,
          desired: desiredHealthy,
          expected: expectedPods,
        },
        c.want,
      );
      assert.equal(observedGeneration, 1);
    });
  }

  it('fails to sync maxUnavailable when a pod has no scalable controller', () => {
    const result = computePdbStatus({
      pdb: pdb({ maxUnavailable: 1 }),
      pods: three,
      controllerReplicas: undefined,
      now: NOW,
    });
    assert.equal(result.ok, false);
  });

  it('does not count recently disrupted pods and drops entries that are stale or done', () => {
    const status = {
      disruptedPods: {
        a: new Date(NOW - 30_000).toISOString(), // evicted 30 s ago, not yet terminating: not healthy
        b: new Date(NOW - 5 * 60_000).toISOString(), // older than DeletionTimeout: dropped
        gone: new Date(NOW - 10_000).toISOString(), // the pod no longer exists: dropped
      },
    };
    const result = computePdbStatus({
      pdb: pdb({ minAvailable: 1 }, status, 3),
      pods: three,
      controllerReplicas: undefined,
      now: NOW,
    });
    assert.ok(result.ok);
    assert.deepEqual(Object.keys(result.status.disruptedPods ?? {}), ['a']);
    assert.equal(result.status.currentHealthy, 2);
    assert.equal(result.status.observedGeneration, 3);
  });
});
