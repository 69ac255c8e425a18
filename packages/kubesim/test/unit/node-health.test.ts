import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  desiredTaints,
  evictionTime,
  lastHeartbeat,
  TAINT,
} from '../../src/controllers/node-health.js';
import type { KObject } from '../../src/types.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const nodeWith = (ready: string | undefined, spec: Record<string, unknown> = {}): KObject => ({
  metadata: { name: 'n' },
  spec,
  status: {
    conditions: ready ? [{ type: 'Ready', status: ready, lastHeartbeatTime: iso(T0) }] : [],
  },
});

describe('desiredTaints', () => {
  const cases: [string, KObject, string[]][] = [
    ['a Ready node carries none', nodeWith('True'), []],
    [
      'Ready=False: not-ready NoSchedule and NoExecute',
      nodeWith('False'),
      [`${TAINT.notReady}:NoSchedule`, `${TAINT.notReady}:NoExecute`],
    ],
    [
      'Ready=Unknown: unreachable NoSchedule and NoExecute',
      nodeWith('Unknown'),
      [`${TAINT.unreachable}:NoSchedule`, `${TAINT.unreachable}:NoExecute`],
    ],
    [
      'no Ready condition counts as Unknown',
      nodeWith(undefined),
      [`${TAINT.unreachable}:NoSchedule`, `${TAINT.unreachable}:NoExecute`],
    ],
    [
      'cordoned: unschedulable NoSchedule',
      nodeWith('True', { unschedulable: true }),
      [`${TAINT.unschedulable}:NoSchedule`],
    ],
    [
      'keeps taints it does not manage and drops stale managed ones',
      nodeWith('True', {
        taints: [
          { key: 'dedicated', value: 'db', effect: 'NoSchedule' },
          { key: TAINT.unreachable, effect: 'NoExecute' },
        ],
      }),
      ['dedicated:NoSchedule'],
    ],
  ];
  for (const [why, node, want] of cases) {
    it(why, () =>
      assert.deepEqual(
        desiredTaints(node, iso(T0)).map((t) => `${t.key}:${t.effect}`),
        want,
      ),
    );
  }

  it('stamps timeAdded on new NoExecute taints and keeps it on existing ones', () => {
    const fresh = desiredTaints(nodeWith('Unknown'), iso(T0));
    assert.equal(fresh.find((t) => t.effect === 'NoExecute')?.timeAdded, iso(T0));
    const later = desiredTaints(
      { ...nodeWith('Unknown'), spec: { taints: fresh } },
      iso(T0 + 60_000),
    );
    assert.equal(later.find((t) => t.effect === 'NoExecute')?.timeAdded, iso(T0));
  });
});

describe('evictionTime', () => {
  const unreachable = [
    { key: TAINT.unreachable, effect: 'NoExecute' as const, timeAdded: iso(T0) },
  ];
  const pod = (tolerations: unknown[]): KObject => ({
    metadata: { name: 'p' },
    spec: { tolerations },
  });
  const cases: [string, KObject, number | undefined][] = [
    ['no toleration: now', pod([]), T0 + 5_000],
    [
      'default 300 s toleration: 300 s after the taint',
      pod([
        { key: TAINT.unreachable, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ]),
      T0 + 300_000,
    ],
    [
      'tolerated forever (DaemonSet pods)',
      pod([{ key: TAINT.unreachable, operator: 'Exists', effect: 'NoExecute' }]),
      undefined,
    ],
    [
      'empty key + Exists tolerates everything (the executor)',
      pod([{ operator: 'Exists' }]),
      undefined,
    ],
    [
      'tolerationSeconds 0: now',
      pod([{ key: TAINT.unreachable, operator: 'Exists', tolerationSeconds: 0 }]),
      T0 + 5_000,
    ],
    [
      'a toleration for another taint does not help',
      pod([{ key: TAINT.notReady, operator: 'Exists', effect: 'NoExecute' }]),
      T0 + 5_000,
    ],
  ];
  for (const [why, p, want] of cases) {
    it(why, () => assert.equal(evictionTime(p, unreachable, T0 + 5_000), want));
  }
});

describe('lastHeartbeat', () => {
  it('takes the newer of the Lease renewTime and the Ready heartbeat', () => {
    const lease: KObject = { metadata: {}, spec: { renewTime: '2026-01-01T00:00:10.000000Z' } };
    assert.equal(lastHeartbeat(nodeWith('True'), lease), T0 + 10_000);
    assert.equal(lastHeartbeat(nodeWith('True'), undefined), T0);
    assert.equal(lastHeartbeat(nodeWith(undefined), undefined), undefined);
  });
});
