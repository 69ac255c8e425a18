/**
 * Approval rules through the Bolt app over HTTP on a demo sim: the two-person rule (the requester
 * never counts, two other approvers do) and a campaign prompt's "approve all".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { campaignPrompt, requestPrompt } from '../../../templates/slack/index.js';
import { requestMaintenance } from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import { requestOn, startHarness, type Harness } from '../../support/slack-app.js';

const ctx = { cluster: 'sim', timeZone: 'UTC', now: new Date() };
const promptOf = (r: MaintenanceRequest, ts: string) => ({
  ts,
  blocks: requestPrompt(r, ctx).blocks,
});

describe('Slack app: two-person rule and campaigns', () => {
  let sim: TestSim;
  let h: Harness;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 20 });
    h = await startHarness(sim, {
      approval: { users: ['UALICE', 'UBOB', 'UREQ'], groups: [], twoPersonRule: true },
    });
  });
  after(async () => {
    await h?.close();
    await sim?.close();
  });

  it('needs two approvers, neither of them the requester', async () => {
    const proposed = await requestMaintenance(h.deps, {
      node: 'node-1',
      action: 'reboot',
      by: { kind: 'person', id: 'UREQ' },
    });
    const request = proposed.request!;
    const prompt = promptOf(request, '1700000600.1');
    await h.click(SLACK_ACTION.approve, request.id, 'UREQ', prompt);
    await h.slack.idle();
    assert.deepEqual((await requestOn(sim, 'node-1'))?.approvals, []);
    await h.click(SLACK_ACTION.approve, request.id, 'UALICE', prompt);
    await h.slack.idle();
    assert.equal((await requestOn(sim, 'node-1'))?.state, 'proposed');
    await h.click(SLACK_ACTION.approve, request.id, 'UBOB', prompt);
    await h.slack.idle();
    const after = await requestOn(sim, 'node-1');
    assert.equal(after?.state, 'approved');
    assert.deepEqual(
      after?.approvals.map((a) => a.by),
      ['UALICE', 'UBOB'],
    );
    const answers = h.api.callsOf('response_url').map((c) => String(c.args['text']));
    assert.ok(
      answers.some((t) => /two-person rule/.test(t)),
      answers.join('\n'),
    );
  });

  it('approve all on a campaign prompt approves each of its requests', async () => {
    const report = await runTick(h.deps);
    assert.deepEqual(report.proposed.sort(), ['node-2: reboot', 'node-5: reboot']);
    const requests = [(await requestOn(sim, 'node-2'))!, (await requestOn(sim, 'node-5'))!];
    const campaign = requests[0]!.campaign!;
    const prompt = { ts: '1700000700.1', blocks: campaignPrompt(requests, ctx).blocks };
    await h.click(SLACK_ACTION.campaignApprove, campaign, 'UALICE', prompt);
    await h.click(SLACK_ACTION.campaignApprove, campaign, 'UBOB', prompt);
    await h.slack.idle();
    for (const node of ['node-2', 'node-5'])
      assert.equal((await requestOn(sim, node))?.state, 'approved', node);
    const edit = h.api
      .callsOf('chat.update')
      .filter((c) => c.args['ts'] === prompt.ts)
      .at(-1);
    assert.ok(edit, 'the campaign prompt was edited');
    assert.deepEqual(
      h.api.calls.filter((c) => c.violations.length > 0).map((c) => c.violations),
      [],
    );
  });
});
