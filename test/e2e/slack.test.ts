/**
 * Slack end to end (issue 6): `kubemaint serve` with Slack credentials posts the prompts of its first
 * tick to a local stand-in for slack.com; an authorised approver's signed click on Approve creates the
 * executor Job; the real executor upgrades node-4's kubelet through the simulated host; the thread
 * shows every step and the prompt ends edited in place to its final, plain state.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BatchV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { SLACK_ACTION } from '../../src/adapters/slack/ids.js';
import { startCli, type LongRunning } from '../support/cli-process.js';
import { interactionBody, slackHeaders } from '../support/slack-sign.js';
import { startSlackWebApi, type SlackCall, type SlackWebApi } from '../support/slack-web-api.js';
import { waitFor } from '../integration/sim/support.js';

const SECRET = 'e2e-signing-secret';
const CHANNEL = 'C0MAINT';
const CONFIG = `cluster:
  type: sim
  sim:
    scenario: demo
approval:
  approvers:
    users: [U0ALICE]
slack:
  channel: ${CHANNEL}
schedules:
  tick: "0 0 1 1 *"
`;

type Block = { type: string; elements?: { action_id?: string; value?: string }[] };

describe('Slack, end to end on the demo', { timeout: 300_000 }, () => {
  let dir: string;
  let api: SlackWebApi;
  let serve: LongRunning;
  let slackUrl: string;
  let core: CoreV1Api;
  let batch: BatchV1Api;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-slack-e2e-'));
    writeFileSync(join(dir, 'kubemaint.yaml'), CONFIG);
    api = await startSlackWebApi();
    serve = startCli(['serve', '--ops-port', '0', '--ops-host', '127.0.0.1'], {
      cwd: dir,
      env: {
        SLACK_BOT_TOKEN: 'xoxb-e2e-token',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: api.apiUrl,
        PORT: '0',
      },
    });
    const ready = await serve.waitFor(/kubeconfig=(\S+) .*slack=http:\/\/[^:]+:(\d+)(\S+)/, 60_000);
    slackUrl = `http://127.0.0.1:${ready[2]!}${ready[3]!}`;
    const kc = new KubeConfig();
    kc.loadFromFile(ready[1]!);
    core = kc.makeApiClient(CoreV1Api);
    batch = kc.makeApiClient(BatchV1Api);
  });

  after(async () => {
    await serve?.stop();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const approveButton = (call: SlackCall) =>
    ((call.args['blocks'] as Block[] | undefined) ?? [])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === SLACK_ACTION.approve);

  it('an approver’s click on the prompt carries node-4’s upgrade to done, in the thread and in place', async () => {
    const prompt = await waitFor(
      'the prompt for node-4',
      () =>
        api
          .callsOf('chat.postMessage')
          .find(
            (c) =>
              c.args['channel'] === CHANNEL &&
              /node-4/.test(String(c.args['text'])) &&
              approveButton(c),
          ),
      60_000,
    );
    const requestId = approveButton(prompt)!.value!;
    const promptTs = String(prompt.response?.['ts']);
    const body = interactionBody({
      type: 'block_actions',
      team: { id: 'T0TEST', domain: 'test' },
      user: { id: 'U0ALICE', username: 'alice', name: 'alice', team_id: 'T0TEST' },
      api_app_id: 'A0TEST',
      token: 'deprecated',
      trigger_id: '1337.42.trigger',
      response_url: api.responseUrl(),
      container: {
        type: 'message',
        message_ts: promptTs,
        channel_id: CHANNEL,
        is_ephemeral: false,
      },
      channel: { id: CHANNEL, name: 'maintenance' },
      message: { type: 'message', ts: promptTs, text: '', blocks: prompt.args['blocks'] },
      actions: [
        {
          type: 'button',
          action_id: SLACK_ACTION.approve,
          block_id: 'actions',
          value: requestId,
          text: { type: 'plain_text', text: 'Approve' },
          action_ts: '1700000000.1',
        },
      ],
    });
    const response = await fetch(slackUrl, {
      method: 'POST',
      headers: slackHeaders(SECRET, body),
      body,
    });
    assert.equal(response.status, 200);

    const done = await waitFor(
      'node-4 done',
      async () => {
        const node = await core.readNode({ name: 'node-4' });
        const request = JSON.parse(
          node.metadata?.annotations?.['kubemaint.io/request'] ?? '{}',
        ) as {
          state?: string;
          approvals?: { by: string }[];
        };
        return request.state === 'done' ? { node, request } : undefined;
      },
      240_000,
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\nserve stdout:\n${serve.stdout()}\nserve stderr:\n${serve.stderr().slice(-4000)}\n` +
          `slack calls: ${api.calls.map((c) => c.method).join(' ')}`,
      );
    });
    assert.equal(done.node.status?.nodeInfo?.kubeletVersion, 'v1.31.4');
    assert.deepEqual(
      done.request.approvals?.map((a) => a.by),
      ['U0ALICE'],
    );
    const jobs = await batch.listNamespacedJob({ namespace: 'kubemaint' });
    assert.equal(
      jobs.items.filter((j) => j.metadata?.labels?.['kubemaint.io/node'] === 'node-4').length,
      1,
    );

    const where = (call: SlackCall) => call.args['channel'] === CHANNEL;
    const replies = () =>
      api
        .callsOf('chat.postMessage')
        .filter((c) => where(c) && c.args['thread_ts'] === promptTs)
        .map((c) => String(c.args['text']));
    const thread = await waitFor(
      'the thread to reach done',
      () => (replies().some((t) => /done/i.test(t)) ? replies() : undefined),
      30_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nthread so far:\n${replies().join('\n')}`);
    });
    for (const step of [/approv/i, /drain/i, /upgrad/i, /back/i, /done/i]) {
      assert.ok(
        thread.some((t) => step.test(t)),
        `a thread reply matches ${String(step)}:\n${thread.join('\n')}`,
      );
    }
    const updates = api.callsOf('chat.update').filter((c) => /node-4/.test(JSON.stringify(c.args)));
    const last = updates.at(-1)!;
    assert.match(String(last.args['text']), /done/i);
    assert.equal(approveButton(last), undefined, 'the final prompt is plain: no buttons');
    const broken = api.calls.filter((c) => c.violations.length > 0);
    assert.deepEqual(
      broken.map((c) => `${c.method}: ${c.violations.join(', ')}`),
      [],
    );
  });
});
