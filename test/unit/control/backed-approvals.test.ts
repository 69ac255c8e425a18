/**
 * The dispatch re-check (invariant 9, ADR 0012): before a request starts, each approval in its status
 * counts only when a MaintenanceApproval object backs it: the same author, the decision `approve`,
 * for this request. Status is writable by more than the approvers; the objects are bound to their
 * authors by admission.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backedApprovals } from '../../../src/app/control/backed-approvals.js';
import type { Decision, MaintenanceRequest } from '../../../src/core/request.js';

const request: MaintenanceRequest = {
  id: 'r-1a2b3c',
  node: 'node-a',
  action: 'reboot',
  reason: 'reboot-required',
  requestedBy: 'detector',
  state: 'approved',
  createdAt: '2026-12-01T10:00:00Z',
  updatedAt: '2026-12-01T10:01:00Z',
  approvals: [{ by: 'k8s:alice', at: '2026-12-01T10:01:00Z', record: 'approve-alice' }],
  history: [],
} as unknown as MaintenanceRequest;

const decision = (overrides: Partial<Decision> = {}): Decision => ({
  name: 'approve-alice',
  request: 'r-1a2b3c',
  by: 'k8s:alice',
  decision: 'approve',
  groups: [],
  at: '2026-12-01T10:01:00Z',
  ...overrides,
});

const judged = (decisions: Decision[], approvals = request.approvals) =>
  backedApprovals({ ...request, approvals }, decisions);

describe('backedApprovals: only approvals a decision object backs count', () => {
  it('keeps an approval whose object names the same author, approve, and this request', () => {
    const { backed, forged } = judged([decision()]);
    assert.deepEqual(forged, []);
    assert.deepEqual(backed.approvals, request.approvals);
    assert.equal(backed.id, request.id, 'the rest of the request is kept');
  });

  it('drops an approval without a record, or whose record no object has, and names its author', () => {
    for (const approvals of [
      [{ by: 'k8s:alice', at: '2026-12-01T10:01:00Z' }],
      [{ by: 'k8s:alice', at: '2026-12-01T10:01:00Z', record: 'approve-nobody' }],
    ]) {
      const { backed, forged } = judged([decision()], approvals);
      assert.deepEqual(forged, ['k8s:alice']);
      assert.deepEqual(backed.approvals, []);
    }
  });

  it('drops an approval whose object was made by someone else, for another request, or to reject', () => {
    for (const other of [
      decision({ by: 'k8s:mallory' }),
      decision({ request: 'r-other1' }),
      decision({ decision: 'reject' }),
    ]) {
      const { backed, forged } = judged([other]);
      assert.deepEqual(forged, ['k8s:alice'], JSON.stringify(other));
      assert.deepEqual(backed.approvals, []);
    }
  });

  it('judges each approval on its own: a backed one stays beside a forged one', () => {
    const approvals = [
      ...request.approvals,
      { by: 'k8s:mallory', at: '2026-12-01T10:02:00Z', record: 'approve-mallory' },
    ];
    const { backed, forged } = judged([decision()], approvals);
    assert.deepEqual(forged, ['k8s:mallory']);
    assert.deepEqual(
      backed.approvals.map((a) => a.by),
      ['k8s:alice'],
    );
  });
});
