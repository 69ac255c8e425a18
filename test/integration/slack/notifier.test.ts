/**
 * The Slack notifier against a local Slack Web API stand-in and the demo sim over real HTTPS: a tick
 * proposes node-2 and node-5 as one campaign (one prompt, the thread location on both requests), an
 * approval edits the campaign's digest without a reply, a campaign's failure is a reply in its
 * thread at once while its routine steps share one edit, a single request gets its own prompt with the
 * preview even after a 429, and a stalled drain asks the approvers. Every payload is checked against
 * Block Kit's limits by the stand-in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approveRequest, requestMaintenance } from '../../../src/app/control/commands.js';
import type { Notifier } from '../../../src/app/control/ports.js';
import { nextWindowText, previewRequest } from '../../../src/app/control/preview.js';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import { createSlackNotifier, type SlackNotifier } from '../../../src/adapters/slack/notifier.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { silentLogger } from '../../../src/log.js';
import { testControlDeps, testControlSettings } from '../../support/control.js';
import { startSlackWebApi, type SlackCall, type SlackWebApi } from '../../support/slack-web-api.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const CHANNEL = 'C0MAINT';
const alice = { kind: 'person', id: 'k8s:alice' } as const;

describe('slack notifier on the demo sim', () => {
  let sim: TestSim;
  let api: SlackWebApi;
  let deps: TickDeps;
  let slack: SlackNotifier;

  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 20 });
    api = await startSlackWebApi();
    const forward: Notifier = { notify: (event, request) => slack.notify(event, request) };
    const settings = testControlSettings({
      lock: { concurrency: 1, poolLabel: 'kubemaint.io/pool', pools: {} },
    });
    deps = testControlDeps(sim, { settings, notifier: forward });
    slack = createSlackNotifier({
      channel: CHANNEL,
      web: { token: 'xoxb-test', slackApiUrl: api.apiUrl, retries: 2 },
      cluster: deps.cluster,
      clock: deps.clock,
      log: silentLogger(),
      clusterName: 'sim',
      timeZone: 'UTC',
      preview: (node) => previewRequest(deps, node),
      nextWindow: () => nextWindowText(settings, deps.clock.now()),
      approvers: ['U0ALICE', 'S0OPS'],
    });
  });
  after(async () => {
    await slack.flush(5_000);
    await api.close();
    await sim.close();
  });

  const requestOn = async (node: string): Promise<MaintenanceRequest> => {
    const found = await deps.cluster.getNode(node);
    assert.ok(found?.request, `request on ${node}`);
    return found.request;
  };
  const topLevel = () => api.callsOf('chat.postMessage').filter((c) => !c.args['thread_ts']);
  const inThread = (ts: string) =>
    api.callsOf('chat.postMessage').filter((c) => c.args['thread_ts'] === ts);
  const blocksText = (call: SlackCall | undefined) => JSON.stringify(call?.args['blocks'] ?? []);
  const waitUntil = async (ok: () => boolean) => {
    for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('a tick posts one campaign prompt for node-2 and node-5 and records it on both', async () => {
    const report = await runTick(deps);
    assert.deepEqual(report.proposed.sort(), ['node-2: reboot', 'node-5: reboot']);
    await slack.flush();
    const posts = topLevel();
    assert.equal(posts.length, 1, 'one prompt for the campaign');
    const [a, b] = [await requestOn('node-2'), await requestOn('node-5')];
    assert.ok(a.campaign && a.campaign === b.campaign);
    assert.equal(posts[0]!.args['channel'], CHANNEL);
    assert.equal(a.slack?.channel, CHANNEL);
    assert.match(a.slack.ts, /^\d+\.\d{6}$/);
    assert.deepEqual(b.slack, a.slack);
    // The prompt as last posted or edited (an edit that would change nothing is not sent) lists
    // both nodes and pools.
    const last = api.calls
      .filter((c) => c === posts[0] || (c.method === 'chat.update' && c.args['ts'] === a.slack?.ts))
      .at(-1);
    assert.match(blocksText(last), /node-2.*node-5/);
    assert.match(blocksText(last), new RegExp(`${a.campaign}/batch`));
    assert.match(blocksText(last), new RegExp(SLACK_ACTION.campaignApprove));
    for (const call of api.calls) assert.deepEqual(call.violations, [], call.method);
  });

  it("an approval edits the campaign's digest in place, without a reply of its own", async () => {
    const request = await requestOn('node-2');
    const before = api.calls.length;
    const result = await approveRequest(deps, request.id, alice);
    assert.ok(result.ok, result.message);
    await slack.flush();
    const calls = api.calls.slice(before);
    assert.deepEqual(
      calls.map((c) => c.method),
      ['chat.update'],
      'one edit of the digest, nothing else',
    );
    const update = calls[0];
    assert.equal(update?.args['ts'], request.slack?.ts);
    assert.equal(update?.args['channel'], CHANNEL);
    assert.match(blocksText(update), /node-2`[^•]*approved/);
    assert.match(blocksText(update), /node-5`[^•]*proposed/);
    assert.equal(topLevel().length, 1, 'no new prompt');
  });

  it("a campaign's events between two edits share one, and a failure is told in its thread at once", async () => {
    const [two, five] = [await requestOn('node-2'), await requestOn('node-5')];
    const before = api.calls.length;
    // Newer than what the cluster holds, as an event's request is: the digest shows them.
    const later = new Date(Date.now() + 60_000).toISOString();
    const event = (request: MaintenanceRequest, kind: 'draining' | 'rebooting' | 'failed') => ({
      kind,
      node: request.node,
      cluster: 'sim',
      requestId: request.id,
      action: 'reboot' as const,
      reason: kind === 'failed' ? 'the node did not come back in 15m' : 'step',
    });
    // The reply is still in flight when the flush starts: its event asks for the edit once it is
    // delivered, and that edit is the same one (flushing before it was two edits, seen on CI).
    api.holdNext('chat.postMessage', 300);
    await slack.notify(event(two, 'draining'), { ...two, state: 'running', updatedAt: later });
    await slack.notify(event(two, 'rebooting'), { ...two, state: 'verifying', updatedAt: later });
    await slack.notify(event(five, 'failed'), {
      ...five,
      state: 'failed',
      failure: 'the node did not come back in 15m',
      updatedAt: later,
    });
    // The reply does not wait for the digest's pace: it is out before the edit is made.
    await waitUntil(() => api.calls.length > before);
    assert.deepEqual(
      api.calls.slice(before).map((c) => c.method),
      ['chat.postMessage'],
    );
    const reply = api.calls[before]!;
    assert.equal(reply.args['thread_ts'], two.slack?.ts);
    assert.match(String(reply.args['text']), /Failed: the node did not come back in 15m/);
    await slack.flush();
    assert.deepEqual(
      api.calls.slice(before).map((c) => c.method),
      ['chat.postMessage', 'chat.update'],
      'three events, one reply (the failure) and one edit',
    );
  });

  it('a single request gets its own prompt with the preview, through a 429', async () => {
    api.failNext('chat.postMessage', { status: 429, retryAfter: 0 }, 1);
    const before = api.callsOf('chat.postMessage').length;
    const result = await requestMaintenance(deps, {
      node: 'node-1',
      action: 'reboot',
      reason: 'kernel CVE <2026-1234> & friends',
      by: alice,
    });
    assert.ok(result.ok, result.message);
    await slack.flush();
    const attempts = api.callsOf('chat.postMessage').slice(before);
    assert.equal(attempts.length, 2, 'refused once with 429, then posted');
    const request = await requestOn('node-1');
    assert.ok(request.slack, 'thread location recorded');
    const prompt = attempts[1]!;
    assert.match(blocksText(prompt), /Pods that would be evicted/);
    assert.match(blocksText(prompt), /kernel CVE &lt;2026-1234&gt; &amp; friends/);
    assert.match(blocksText(prompt), new RegExp(SLACK_ACTION.approve));
    assert.deepEqual(prompt.violations, []);
  });

  it('a stalled drain asks the approvers in the thread, with wait, skip and force', async () => {
    const request = await requestOn('node-1');
    const stalled: MaintenanceRequest = {
      ...request,
      state: 'running',
      drain: {
        total: 4,
        evicted: 3,
        waitingOn: [{ pod: 'shop/web-1', reason: 'PDB web allows 0 disruptions' }],
        stalledSince: deps.clock.now().toISOString(),
        message: 'waiting on 1 pod',
      },
    };
    await slack.notify(
      {
        kind: 'draining',
        node: 'node-1',
        cluster: 'sim',
        requestId: request.id,
        action: 'reboot',
        ask: 'drain-decision',
      },
      stalled,
    );
    await slack.flush();
    const question = inThread(request.slack!.ts).at(-1);
    const text = blocksText(question);
    assert.match(text, /<@U0ALICE> <!subteam\^S0OPS>/);
    for (const id of [SLACK_ACTION.drainWait, SLACK_ACTION.drainSkip, SLACK_ACTION.drainForce])
      assert.match(text, new RegExp(id));
    assert.match(text, /shop\/web-1/);
    const update = api.callsOf('chat.update').at(-1);
    assert.match(blocksText(update), /Drain:\* 3\/4 evicted/);
  });
});
