import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  phaseOf,
  planRetention,
  summaryLine,
  type LabelledRequest,
  type RequestPhase,
} from '../../../src/core/retention.js';
import {
  EXECUTOR_ACTOR,
  type MaintenanceRequest,
  type RequestState,
} from '../../../src/core/request.js';

const DAY = 86_400_000;
const NOW = new Date('2026-12-01T12:00:00Z');
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString();

function request(
  id: string,
  state: RequestState,
  options: { node?: string; endedAgo?: number; by?: string } = {},
): MaintenanceRequest {
  const updatedAt = ago(options.endedAgo ?? DAY);
  const createdAt = ago((options.endedAgo ?? DAY) + 600_000);
  return {
    id,
    node: options.node ?? 'node-1',
    action: 'reboot',
    reason: 'kernel',
    requestedBy: 'detector',
    state,
    createdAt,
    updatedAt,
    approvals: [],
    history: [
      { from: null, to: state, at: updatedAt, by: options.by ?? 'kubemaint:control-plane' },
    ],
  };
}

const labelled = (r: MaintenanceRequest, phase?: RequestPhase): LabelledRequest => ({
  request: r,
  phase: phase ?? phaseOf(r),
});
const SETTINGS = { maxAgeMs: 30 * DAY, keepPerNode: 3, reproposeAfterMs: 3_600_000, limit: 1000 };

describe('retention: the phase label', () => {
  it('is open while active, ended when done, quiet after any other end', () => {
    assert.equal(phaseOf(request('r-a', 'approved')), 'open');
    assert.equal(phaseOf(request('r-b', 'done')), 'ended');
    assert.equal(phaseOf(request('r-c', 'failed')), 'quiet');
    assert.equal(phaseOf(request('r-d', 'rejected')), 'quiet');
  });

  it('stays open for an end the executor wrote and nobody reported yet', () => {
    const ended = request('r-e', 'failed', { by: EXECUTOR_ACTOR });
    assert.equal(phaseOf(ended), 'open');
    assert.equal(phaseOf({ ...ended, announced: ['ended'] }), 'quiet');
  });
});

describe('retention: what a sweep deletes', () => {
  it('deletes ended requests beyond the count per node, oldest first, never an active one', () => {
    const ended = Array.from({ length: 6 }, (_, i) =>
      labelled(request(`r-${i}`, 'done', { endedAgo: (10 - i) * DAY })),
    );
    const active = labelled(request('r-live', 'running', { endedAgo: 40 * DAY }));
    const plan = planRetention([active, ...ended], SETTINGS, NOW);
    assert.deepEqual(
      plan.remove.map((r) => r.id),
      ['r-0', 'r-1', 'r-2'],
    );
    assert.deepEqual(plan.relabel, []);
  });

  it('deletes ended requests older than maxAge, whatever the count', () => {
    const plan = planRetention(
      [
        labelled(request('r-old', 'done', { endedAgo: 31 * DAY })),
        labelled(request('r-new', 'done', { endedAgo: 29 * DAY })),
      ],
      SETTINGS,
      NOW,
    );
    assert.deepEqual(
      plan.remove.map((r) => r.id),
      ['r-old'],
    );
  });

  it('counts per node', () => {
    const many = (node: string) =>
      Array.from({ length: 4 }, (_, i) =>
        labelled(request(`r-${node}-${i}`, 'done', { node, endedAgo: (5 - i) * DAY })),
      );
    const plan = planRetention([...many('a'), ...many('b')], SETTINGS, NOW);
    assert.deepEqual(plan.remove.map((r) => r.id).sort(), ['r-a-0', 'r-b-0']);
  });

  it('never deletes the request that keeps its node quiet, even beyond maxAge', () => {
    const quiet = request('r-failed', 'failed', { endedAgo: 60_000 });
    const plan = planRetention(
      [labelled(quiet)],
      { ...SETTINGS, maxAgeMs: 1, keepPerNode: 0 },
      NOW,
    );
    assert.deepEqual(plan.remove, []);
  });

  it('stops at the limit, oldest first', () => {
    const ended = Array.from({ length: 10 }, (_, i) =>
      labelled(request(`r-${i}`, 'done', { endedAgo: (50 - i) * DAY })),
    );
    const plan = planRetention(ended, { ...SETTINGS, limit: 4 }, NOW);
    assert.deepEqual(
      plan.remove.map((r) => r.id),
      ['r-0', 'r-1', 'r-2', 'r-3'],
    );
  });
});

describe('retention: labels set right', () => {
  it('labels objects written before the label existed', () => {
    const plan = planRetention(
      [
        { request: request('r-done', 'done'), phase: undefined },
        { request: request('r-live', 'proposed', { node: 'node-2' }), phase: undefined },
      ],
      SETTINGS,
      NOW,
    );
    assert.deepEqual(plan.relabel, [
      { id: 'r-done', phase: 'ended' },
      { id: 'r-live', phase: 'open' },
    ]);
  });

  it('ends the quiet of a request past reproposeAfter, or one a newer request follows', () => {
    const past = request('r-past', 'failed', { endedAgo: 2 * 3_600_000 });
    const older = request('r-older', 'rejected', { node: 'node-2', endedAgo: 600_000 });
    const newer = request('r-newer', 'done', { node: 'node-2', endedAgo: 60_000 });
    const plan = planRetention([labelled(past), labelled(older), labelled(newer)], SETTINGS, NOW);
    assert.deepEqual(plan.relabel, [
      { id: 'r-past', phase: 'ended' },
      { id: 'r-older', phase: 'ended' },
    ]);
  });
});

describe('retention: the summary line', () => {
  it('says when, which request, what, how it ended, who approved and how long it took', () => {
    const r = {
      ...request('r-abc123', 'done', { endedAgo: DAY }),
      approvals: [{ by: 'k8s:alice', at: ago(DAY + 300_000) }],
      history: [
        { from: 'verifying', to: 'done', at: ago(DAY), by: 'x', note: 'back with a new boot' },
      ],
    } as MaintenanceRequest;
    assert.equal(
      summaryLine(r),
      '2026-11-30 12:00 r-abc123 reboot done approved by k8s:alice took 10m (back with a new boot)',
    );
  });
});
