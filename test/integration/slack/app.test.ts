/**
 * The real Bolt app over HTTP against a demo sim: signed requests only, slash commands acked within
 * Slack's limit and answered through response_url, approve/reject/snooze/campaign buttons acting
 * through the control plane's use cases, authorisation on the server (user, group, two-person rule,
 * channel), and robustness (double clicks, Slack retries, stale prompts) — with every Web API call
 * checked against Block Kit's limits.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestPrompt } from '../../../templates/slack/index.js';
import { requestMaintenance } from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { jobName } from '../../../src/core/names.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { slackHeaders, slashCommandBody } from '../../support/slack-sign.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import {
  eventsOn,
  requestOn,
  SECRET,
  startHarness,
  type Harness,
} from '../../support/slack-app.js';

const ctx = { cluster: 'sim', timeZone: 'UTC', now: new Date() };
const promptOf = (r: MaintenanceRequest, ts: string) => ({
  ts,
  blocks: requestPrompt(r, ctx).blocks,
});

describe('Slack app over HTTP on the demo sim', () => {
  let sim: TestSim;
  let h: Harness;
  const responses = (from: number) =>
    h.api
      .callsOf('response_url')
      .slice(from)
      .map((c) => String(c.args['text']));
  const propose = async (node: string, by = 'UREQ'): Promise<MaintenanceRequest> => {
    const result = await requestMaintenance(h.deps, {
      node,
      action: 'reboot',
      reason: `kernel <${node}> & co`,
      by: { kind: 'person', id: by },
    });
    assert.ok(result.request, result.message);
    return result.request;
  };

  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 20, delays: { jobPodRunMs: 600_000 } });
    h = await startHarness(sim);
    h.api.setGroup('SAPPROVERS', ['UCAROL']);
  });
  after(async () => {
    await h?.close();
    await sim?.close();
  });

  it('refuses unsigned, wrongly signed and stale requests with 401', async () => {
    const body = slashCommandBody({
      command: '/maint',
      text: 'help',
      userId: 'UALICE',
      channelId: 'CMAINT',
      responseUrl: h.api.responseUrl(),
    });
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    assert.equal((await h.post(body, form)).status, 401);
    assert.equal((await h.post(body, slackHeaders('wrong-secret', body))).status, 401);
    const stale = Math.floor(Date.now() / 1000) - 301;
    assert.equal((await h.post(body, slackHeaders(SECRET, body, stale))).status, 401);
    const fresh = await h.post(body, slackHeaders(SECRET, body));
    assert.equal(fresh.status, 200);
    assert.match(fresh.text, /\/maint approve r-7f3a9c/);
  });

  it('answers bad input in the ack, saying what was wrong and what would work', async () => {
    const typo = await h.command('aprove r-7f3a9c', 'UALICE');
    assert.equal(typo.status, 200);
    const answer = JSON.parse(typo.text) as { response_type: string; text: string };
    assert.equal(answer.response_type, 'ephemeral');
    assert.match(answer.text, /`aprove` is not a \/maint command/);
    assert.match(answer.text, /did you mean `\/maint approve &lt;request-id&gt;`/);
    const from = h.api.callsOf('response_url').length;
    assert.equal((await h.command('status node-22', 'UALICE')).status, 200);
    await h.slack.idle();
    assert.match(responses(from).join('\n'), /no node `node-22`.*did you mean `node-2`\?/);
  });

  it('a double click and a Slack retry make one approval and, after a tick, one Job', async () => {
    const request = await propose('node-2');
    const prompt = promptOf(request, '1700000100.000100');
    const clicks = await Promise.all([
      h.click(SLACK_ACTION.approve, request.id, 'UALICE', prompt),
      h.click(SLACK_ACTION.approve, request.id, 'UALICE', prompt),
    ]);
    assert.deepEqual(
      clicks.map((c) => c.status),
      [200, 200],
    );
    const retry = await h.click(SLACK_ACTION.approve, request.id, 'UALICE', prompt, {
      'X-Slack-Retry-Num': '1',
      'X-Slack-Retry-Reason': 'http_timeout',
    });
    assert.equal(retry.status, 200);
    await h.slack.idle();
    const approved = await requestOn(sim, 'node-2');
    assert.equal(approved?.state, 'approved');
    assert.deepEqual(
      approved?.approvals.map((a) => a.by),
      ['UALICE'],
    );
    await runTick(h.deps);
    await runTick(h.deps);
    const jobs = await sim.batch.listNamespacedJob({ namespace: 'kubemaint' });
    const names = jobs.items.map((j) => j.metadata?.name);
    assert.deepEqual(names, [jobName('node-2', request.id)]);
    const updates = h.api.callsOf('chat.update').filter((c) => c.args['ts'] === prompt.ts);
    assert.ok(updates.length >= 1, 'the prompt was edited in place');
    assert.match(JSON.stringify(updates.at(-1)?.args['blocks']), /approved|running/i);
  });

  it('a non-approver’s click changes nothing, is answered and recorded', async () => {
    const request = await propose('node-1');
    const from = h.api.callsOf('response_url').length;
    await h.click(SLACK_ACTION.approve, request.id, 'UMALLORY', promptOf(request, '1700000200.1'));
    await h.slack.idle();
    const after = await requestOn(sim, 'node-1');
    assert.equal(after?.state, 'proposed');
    assert.deepEqual(after?.approvals, []);
    assert.match(responses(from).join('\n'), /UMALLORY is not an approver/);
    const events = await eventsOn(sim, 'node-1', 'KubemaintUnauthorised');
    assert.ok(
      events.some((e) => e.includes('UMALLORY') && e.includes(request.id)),
      events.join(),
    );
  });

  it('a member of an approver group approves', async () => {
    const request = (await requestOn(sim, 'node-1'))!;
    await h.click(SLACK_ACTION.approve, request.id, 'UCAROL', promptOf(request, '1700000200.1'));
    await h.slack.idle();
    const after = await requestOn(sim, 'node-1');
    assert.equal(after?.state, 'approved');
    assert.deepEqual(
      after?.approvals.map((a) => a.by),
      ['UCAROL'],
    );
    assert.ok(h.api.callsOf('usergroups.users.list').length >= 1);
  });

  it('reject opens the modal; its submission rejects with the reason', async () => {
    const request = await propose('node-3');
    const prompt = promptOf(request, '1700000300.1');
    await h.click(SLACK_ACTION.reject, request.id, 'UBOB', prompt);
    await h.slack.idle();
    const open = h.api.callsOf('views.open').at(-1);
    const view = open?.args['view'] as { callback_id: string; private_metadata: string };
    assert.equal(view.callback_id, 'kubemaint_reject_modal');
    const submitted = await h.submitReject(view.private_metadata, 'not during the <sale>', 'UBOB');
    assert.equal(submitted.status, 200);
    await h.slack.idle();
    const after = await requestOn(sim, 'node-3');
    assert.equal(after?.state, 'rejected');
    assert.equal(after?.history.at(-1)?.note, 'not during the <sale>');
    const update = h.api
      .callsOf('chat.update')
      .filter((c) => c.args['ts'] === prompt.ts)
      .at(-1);
    assert.match(JSON.stringify(update?.args['blocks']), /rejected/i);
  });

  it('a non-approver’s reject submission is refused in the modal and changes nothing', async () => {
    const request = await propose('node-6');
    const meta = JSON.stringify({ requestId: request.id, channel: 'CMAINT', ts: '1.2' });
    const answer = await h.submitReject(meta, 'no', 'UMALLORY');
    assert.match(answer.text, /"response_action":"errors"/);
    await h.slack.idle();
    assert.equal((await requestOn(sim, 'node-6'))?.state, 'proposed');
  });

  it('a click on a prompt whose request ended edits the prompt instead of acting', async () => {
    const ended = (await requestOn(sim, 'node-3'))!;
    const stale = promptOf({ ...ended, state: 'proposed' }, '1700000400.1');
    await h.click(SLACK_ACTION.approve, ended.id, 'UALICE', stale);
    await h.click(SLACK_ACTION.approve, 'r-000000', 'UALICE', { ...stale, ts: '1700000400.2' });
    await h.slack.idle();
    assert.equal((await requestOn(sim, 'node-3'))?.state, 'rejected');
    const edits = h.api.callsOf('chat.update');
    const first = edits.filter((c) => c.args['ts'] === '1700000400.1').at(-1);
    assert.ok(first, 'the ended prompt was re-rendered');
    assert.doesNotMatch(JSON.stringify(first.args['blocks']), /kubemaint_approve/);
    const gone = edits.filter((c) => c.args['ts'] === '1700000400.2').at(-1);
    assert.match(String(gone?.args['text']), /r-000000 no longer exists/);
  });

  it('snooze keeps the request proposed, replies in the thread and records an Event', async () => {
    const request = (await requestOn(sim, 'node-6'))!;
    await h.click(SLACK_ACTION.snooze, request.id, 'UBOB', promptOf(request, '1700000500.1'));
    await h.slack.idle();
    assert.equal((await requestOn(sim, 'node-6'))?.state, 'proposed');
    const reply = h.api.callsOf('chat.postMessage').at(-1);
    assert.equal(reply?.args['thread_ts'], '1700000500.1');
    assert.match(String(reply?.args['text']), /snoozed until .* by <@UBOB>/);
    assert.equal((await eventsOn(sim, 'node-6', 'KubemaintSnoozed')).length, 1);
  });

  it('slash commands from other channels are refused; status answers through response_url', async () => {
    const elsewhere = await h.command('approve r-000000', 'UALICE', 'CRANDOM');
    assert.match(elsewhere.text, /kubemaint answers in <#CMAINT>/);
    const from = h.api.callsOf('response_url').length;
    const status = await h.command('status', 'UALICE');
    assert.equal(status.status, 200);
    await h.slack.idle();
    const text = responses(from).join('\n');
    assert.match(text, /open:/);
    assert.match(text, /node-6: reboot, proposed/);
    // The reason came from a person: mrkdwn control characters are escaped.
    const node = await h.command('status node-6', 'UALICE');
    assert.equal(node.status, 200);
    await h.slack.idle();
    assert.match(responses(from).join('\n'), /kernel &lt;node-6&gt; &amp; co/);
  });

  it('/maint approve by command follows the same rules as the button', async () => {
    const request = (await requestOn(sim, 'node-6'))!;
    const from = h.api.callsOf('response_url').length;
    await h.command(`approve ${request.id}`, 'UMALLORY');
    await h.slack.idle();
    assert.equal((await requestOn(sim, 'node-6'))?.state, 'proposed');
    await h.command(`approve ${request.id}`, 'UBOB');
    await h.slack.idle();
    assert.equal((await requestOn(sim, 'node-6'))?.state, 'approved');
    const text = responses(from).join('\n');
    assert.match(text, /UMALLORY is not an approver/);
    assert.match(text, new RegExp(`approve by UBOB: ${request.id} is approved`));
  });

  it('every Web API call and response passed Block Kit’s limits', () => {
    const broken = h.api.calls.filter((c) => c.violations.length > 0);
    assert.deepEqual(
      broken.map((c) => `${c.method}: ${c.violations.join(', ')}`),
      [],
    );
    assert.ok(h.api.calls.length > 10);
  });
});
