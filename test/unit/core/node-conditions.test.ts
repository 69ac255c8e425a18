import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAINTENANCE_CONDITION_TYPES,
  maintenanceConditions,
} from '../../../src/core/node-conditions.js';
import { FINAL_STATES, type MaintenanceRequest } from '../../../src/core/request.js';

const approvedAt = '2026-12-01T10:00:00.000Z';
const runningAt = '2026-12-01T11:00:00.000Z';
const drainedAt = '2026-12-01T11:05:00.000Z';
const issuedAt = '2026-12-01T11:06:00.000Z';

const base: MaintenanceRequest = {
  id: 'r-7f3a9c',
  node: 'node-1',
  action: 'reboot',
  state: 'approved',
  reason: 'reboot-required',
  requestedBy: 'detector',
  createdAt: '2026-12-01T09:00:00.000Z',
  updatedAt: '2026-12-01T12:00:00.000Z',
  approvals: [{ by: 'k8s:alice', at: approvedAt }],
  history: [
    { from: null, to: 'proposed', at: '2026-12-01T09:00:00.000Z', by: 'detector' },
    { from: 'proposed', to: 'approved', at: approvedAt, by: 'k8s:alice' },
  ],
};
const running: MaintenanceRequest = {
  ...base,
  state: 'running',
  history: [...base.history, { from: 'approved', to: 'running', at: runningAt, by: 'executor' }],
  drain: { total: 3, evicted: 1, waitingOn: [], message: '1 of 3 pods evicted' },
};
const drained: MaintenanceRequest = {
  ...running,
  drain: { ...running.drain!, evicted: 3, completedAt: drainedAt },
};
const verifying: MaintenanceRequest = {
  ...drained,
  state: 'verifying',
  hostCommandIssuedAt: issuedAt,
};

const kinds = (request: MaintenanceRequest) =>
  maintenanceConditions(request).map((c) => `${c.type}/${c.reason}`);

describe('maintenanceConditions (KEP-5683 Node Lifecycle Conditions)', () => {
  const cases = [
    { why: 'a proposal plans nothing yet', req: { ...base, state: 'proposed' as const }, want: [] },
    {
      why: 'approved and waiting: planned, by an admin',
      req: base,
      want: ['MaintenancePlanned/AdminRequested'],
    },
    {
      why: 'approved and waiting for the window: planned, for the window',
      req: { ...base, blockedReasons: ['window closed; opens in 2 h'] },
      want: ['MaintenancePlanned/MaintenanceWindow'],
    },
    {
      why: 'waiting for a slot is not a window reason',
      req: { ...base, blockedReasons: ['all 1 slots are held'] },
      want: ['MaintenancePlanned/AdminRequested'],
    },
    { why: 'running, pods still on it', req: running, want: ['DrainInProgress/AdminRequested'] },
    { why: 'running, drain finished', req: drained, want: ['Drained/DrainCompleted'] },
    {
      why: 'host command issued: drained and under maintenance',
      req: verifying,
      want: ['Drained/DrainCompleted', 'MaintenanceInProgress/AdminRequested'],
    },
    ...FINAL_STATES.map((state) => ({
      why: `ended ${state}: none`,
      req: { ...verifying, state },
      want: [] as string[],
    })),
  ];
  for (const c of cases) {
    it(c.why, () => assert.deepEqual(kinds(c.req), c.want));
  }

  it('names the request in every message and takes its times from the request', () => {
    const [planned] = maintenanceConditions(base);
    assert.match(planned!.message, /kubemaint request r-7f3a9c \(reboot\)/);
    assert.equal(planned!.lastTransitionTime, approvedAt);
    assert.equal(maintenanceConditions(running)[0]!.lastTransitionTime, runningAt);
    const [drainedCondition, inProgress] = maintenanceConditions(verifying);
    assert.equal(drainedCondition!.lastTransitionTime, drainedAt);
    assert.equal(inProgress!.lastTransitionTime, issuedAt);
    assert.match(inProgress!.message, /r-7f3a9c.*rebooting/);
    const upgrade = maintenanceConditions({
      ...verifying,
      action: 'upgrade',
      targetVersion: 'v1.35.2',
    });
    assert.match(upgrade[1]!.message, /r-7f3a9c \(upgrade to v1\.35\.2\): upgrading the kubelet/);
  });

  it('is the same when asked twice (writing it again changes nothing on the node)', () => {
    assert.deepEqual(maintenanceConditions(verifying), maintenanceConditions(verifying));
  });

  it('uses only the KEP types, every one True', () => {
    for (const request of [base, running, drained, verifying])
      for (const c of maintenanceConditions(request)) {
        assert.ok(MAINTENANCE_CONDITION_TYPES.includes(c.type));
        assert.equal(c.status, 'True');
      }
  });
});
