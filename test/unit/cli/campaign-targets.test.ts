import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { campaignTargets } from '../../../src/cli/decide-campaign.js';
import type { MaintenanceRequest, RequestState } from '../../../src/core/request.js';
import { campaign } from '../templates/slack-fixtures.js';

const states: RequestState[] = ['proposed', 'approved', 'running', 'verifying', 'done'];
const members: MaintenanceRequest[] = [
  ...campaign(states).map((r, i) => ({
    ...r,
    id: `r-00000${i}`,
    node: `node-${i}`,
    ...(r.state === 'verifying' ? { hostCommandIssuedAt: '2026-11-22T01:40:00Z' } : {}),
  })),
  { ...campaign(['proposed'])[0]!, id: 'r-other0', campaign: 'c-other0' },
];
const nodesOf = (kind: 'approve' | 'reject' | 'cancel') =>
  campaignTargets(members, 'c-abc123', kind).map((r) => r.state);

describe('campaignTargets: the requests of a campaign a decision can still move', () => {
  it('approve: the proposed ones', () => assert.deepEqual(nodesOf('approve'), ['proposed']));
  it('reject: the proposed and approved ones', () =>
    assert.deepEqual(nodesOf('reject'), ['proposed', 'approved']));
  it('cancel: every active one whose host command is not issued', () =>
    assert.deepEqual(nodesOf('cancel'), ['proposed', 'approved', 'running']));
  it('never another campaign', () =>
    assert.ok(!campaignTargets(members, 'c-abc123', 'approve').some((r) => r.id === 'r-other0')));
});
