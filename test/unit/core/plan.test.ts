import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  approvedAt,
  expectedDuration,
  planDispatch,
  type PlanInput,
} from '../../../src/core/plan.js';
import type { MaintenanceRequest, RequestState } from '../../../src/core/request.js';

const NOW = new Date('2026-03-07T02:00:00Z');
const MIN = 60_000;
const estimates: PlanInput['estimates'] = {
  reboot: { drainMs: 10 * MIN, hostMs: 5 * MIN, verifyMs: 5 * MIN },
  upgrade: { drainMs: 10 * MIN, hostMs: 15 * MIN, verifyMs: 5 * MIN },
};

let seq = 0;
function req(
  node: string,
  approvedMinute: number,
  extra: Partial<MaintenanceRequest> = {},
): MaintenanceRequest {
  const at = new Date(Date.parse('2026-03-06T00:00:00Z') + approvedMinute * MIN).toISOString();
  seq += 1;
  return {
    id: `r-${seq.toString(16).padStart(6, '0')}`,
    node,
    action: 'reboot',
    state: 'approved',
    reason: 'reboot-required',
    requestedBy: 'detector',
    createdAt: '2026-03-05T00:00:00.000Z',
    updatedAt: at,
    approvals: [{ by: 'U_ALICE', at }],
    history: [
      { from: null, to: 'proposed', at: '2026-03-05T00:00:00.000Z', by: 'detector' },
      { from: 'proposed', to: 'approved', at, by: 'U_ALICE' },
    ],
    ...extra,
  };
}
const input = (candidates: MaintenanceRequest[], patch: Partial<PlanInput> = {}): PlanInput => ({
  candidates,
  inUse: { total: 0 },
  concurrency: { global: 2 },
  estimates,
  ...patch,
});
const summary = (i: PlanInput) =>
  planDispatch(i, NOW).order.map((p) => `${p.request.node}:${p.dispatch ? 'go' : p.reason}`);

describe('planDispatch: order', () => {
  it('puts the oldest approval first, then node name', () => {
    const got = planDispatch(
      input([req('node-c', 5), req('node-b', 1), req('node-a', 5)], { concurrency: { global: 3 } }),
      NOW,
    );
    assert.deepEqual(
      got.order.map((p) => [p.position, p.request.node]),
      [
        [1, 'node-b'],
        [2, 'node-a'],
        [3, 'node-c'],
      ],
    );
  });
  it('reads the approval time from history, falling back to approvals and creation', () => {
    const r = req('n', 3);
    assert.equal(approvedAt(r), '2026-03-06T00:03:00.000Z');
    assert.equal(approvedAt({ ...r, history: [] }), '2026-03-06T00:03:00.000Z');
    assert.equal(approvedAt({ ...r, history: [], approvals: [] }), '2026-03-05T00:00:00.000Z');
  });
});

describe('planDispatch: what goes now and why the rest waits', () => {
  const gpu = { pools: { 'gpu-1': 'gpu', 'gpu-2': 'gpu', 'web-1': 'web' } };
  const cases: [why: string, i: PlanInput, want: string[]][] = [
    [
      'dispatches up to the global limit',
      input([req('a', 1), req('b', 2), req('c', 3)]),
      ['a:go', 'b:go', 'c:all 2 slots in use'],
    ],
    [
      'counts slots already held',
      input([req('a', 1), req('b', 2)], { inUse: { total: 1 } }),
      ['a:go', 'b:all 2 slots in use'],
    ],
    [
      'a pool at its limit does not block other pools behind it',
      input([req('gpu-1', 1), req('gpu-2', 2), req('web-1', 3)], {
        ...gpu,
        concurrency: { global: 3, perPool: { gpu: 1 } },
      }),
      ['gpu-1:go', 'gpu-2:pool gpu at its limit 1', 'web-1:go'],
    ],
    [
      'counts pool slots already held',
      input([req('gpu-1', 1), req('web-1', 2)], {
        ...gpu,
        inUse: { total: 1, byPool: { gpu: 1 } },
        concurrency: { global: 3, perPool: { gpu: 1 } },
      }),
      ['gpu-1:pool gpu at its limit 1', 'web-1:go'],
    ],
    [
      'applies the default per-pool limit to unlisted pools',
      input([req('web-1', 1), req('web-2', 2, { pool: 'web' })], {
        pools: { 'web-1': 'web' },
        concurrency: { global: 5, defaultPerPool: 1 },
      }),
      ['web-1:go', 'web-2:pool web at its limit 1'],
    ],
    [
      'skips everything when the window is closed',
      input([req('a', 1)], { window: { open: false } }),
      ['a:window closed'],
    ],
    [
      'skips a node whose expected duration does not fit, and dispatches one that does',
      input([req('up', 1, { action: 'upgrade', targetVersion: 'v1.31.4' }), req('rb', 2)], {
        window: { open: true, closesAt: new Date(NOW.getTime() + 25 * MIN) },
      }),
      ['up:needs about 30m but the window closes in 25m', 'rb:go'],
    ],
    [
      'prefers a measured duration per node',
      input([req('slow', 1)], {
        expectedByNode: { slow: 90 * MIN },
        window: { open: true, closesAt: new Date(NOW.getTime() + 60 * MIN) },
      }),
      ['slow:needs about 1h30m but the window closes in 1h'],
    ],
    [
      'zero concurrency dispatches nothing',
      input([req('a', 1)], { concurrency: { global: 0 } }),
      ['a:concurrency is 0: no node may start'],
    ],
    [
      'only approved requests are dispatched; a busy node gets no second Job',
      input([
        req('a', 1, { id: 'r-00000a', state: 'proposed' }),
        req('b', 9, { id: 'r-00000b', state: 'running' }),
        req('b', 2),
      ]),
      [
        'a:request r-00000a is proposed; only approved requests are dispatched',
        'b:b is busy with request r-00000b',
        'b:request r-00000b is running; only approved requests are dispatched',
      ],
    ],
    [
      'two approved requests for one node: only the first',
      input([req('a', 1, { id: 'r-0000a1' }), req('a', 2, { id: 'r-0000a2' })]),
      ['a:go', 'a:a already has request r-0000a1 ahead in line'],
    ],
  ];
  for (const [why, i, want] of cases) {
    it(why, () => assert.deepEqual(summary(i), want));
  }

  it('explains dispatches and reports fit', () => {
    const p = planDispatch(
      input([req('gpu-1', 1)], {
        ...gpu,
        concurrency: { global: 2, perPool: { gpu: 1 } },
        window: { open: true, closesAt: new Date(NOW.getTime() + 60 * MIN) },
      }),
      NOW,
    );
    assert.deepEqual(p.order[0], {
      request: p.dispatch[0],
      position: 1,
      pool: 'gpu',
      approvedAt: '2026-03-06T00:01:00.000Z',
      expectedMs: 20 * MIN,
      fitsWindow: true,
      dispatch: true,
      reason: 'dispatch now: slot 1 of 2; pool gpu 1 of 1',
    });
    assert.deepEqual(p.skipped, []);
  });

  it('sums drain, host command and verify for the expected duration', () =>
    assert.equal(expectedDuration(req('x', 1, { action: 'upgrade' }), estimates), 30 * MIN));
});

type Generated<A> = A extends fc.Arbitrary<infer T> ? T : never;

describe('planDispatch: properties', () => {
  const states: RequestState[] = ['approved', 'approved', 'approved', 'proposed', 'running'];
  const arbRequest = fc
    .record({
      node: fc.constantFrom('a', 'b', 'c', 'gpu-1', 'gpu-2', 'web-1'),
      minute: fc.integer({ min: 0, max: 5 }),
      state: fc.constantFrom(...states),
      action: fc.constantFrom<'reboot' | 'upgrade'>('reboot', 'upgrade'),
      id: fc.stringMatching(/^r-[0-9a-f]{6}$/),
    })
    .map((g) => req(g.node, g.minute, { id: g.id, state: g.state, action: g.action }));
  const arbInput = fc.record({
    candidates: fc.array(arbRequest, { maxLength: 12 }),
    global: fc.integer({ min: 0, max: 4 }),
    inUse: fc.integer({ min: 0, max: 3 }),
    gpuLimit: fc.integer({ min: 0, max: 2 }),
    gpuInUse: fc.integer({ min: 0, max: 2 }),
    closesIn: fc.option(fc.integer({ min: 0, max: 60 })),
  });
  const build = (g: Generated<typeof arbInput>, candidates: MaintenanceRequest[]): PlanInput =>
    input(candidates, {
      pools: { 'gpu-1': 'gpu', 'gpu-2': 'gpu', 'web-1': 'web' },
      inUse: { total: g.inUse, byPool: { gpu: g.gpuInUse } },
      concurrency: { global: g.global, perPool: { gpu: g.gpuLimit } },
      ...(g.closesIn === null
        ? {}
        : { window: { open: true, closesAt: new Date(NOW.getTime() + g.closesIn * MIN) } }),
    });

  it('gives the same plan whatever order the candidates come in', () =>
    fc.assert(
      fc.property(arbInput, fc.infiniteStream(fc.double()), (g, keys) => {
        const shuffled = g.candidates
          .map((c) => [keys.next().value as number, c] as const)
          .sort(([x], [y]) => x - y)
          .map(([, c]) => c);
        assert.deepEqual(
          planDispatch(build(g, shuffled), NOW),
          planDispatch(build(g, g.candidates), NOW),
        );
      }),
    ));

  it('never exceeds the global or a pool limit, and accounts for every candidate once', () =>
    fc.assert(
      fc.property(arbInput, (g) => {
        const p = planDispatch(build(g, g.candidates), NOW);
        assert.ok(p.dispatch.length <= Math.max(0, g.global - g.inUse));
        const gpu = p.dispatch.filter((r) => r.node.startsWith('gpu-')).length;
        assert.ok(gpu <= Math.max(0, g.gpuLimit - g.gpuInUse));
        assert.equal(p.dispatch.length + p.skipped.length, g.candidates.length);
        assert.equal(new Set(p.dispatch.map((r) => r.node)).size, p.dispatch.length);
        assert.ok(p.dispatch.every((r) => r.state === 'approved'));
      }),
    ));

  it('leaves a slot unused only when it has a reason (no idle capacity with eligible work)', () =>
    fc.assert(
      fc.property(arbInput, (g) => {
        const p = planDispatch(build(g, g.candidates), NOW);
        const free = g.global - g.inUse - p.dispatch.length;
        if (free > 0) {
          for (const s of p.skipped) assert.doesNotMatch(s.reason, /slots in use/);
        }
      }),
    ));
});
