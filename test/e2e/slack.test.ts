/**
 * Slack end to end (issue 6): `kubemaint serve` with Slack credentials posts the prompts of its first
 * tick to a local stand-in for slack.com; an authorised approver's signed clicks on Approve create the
 * executor Jobs; the real executor reboots node-1 (asked with `/maint reboot`) and upgrades node-4's kubelet through the simulated
 * host; each thread shows every step and each prompt ends edited in place to its final, plain state.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BatchV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { SLACK_ACTION } from '../../templates/slack/ids.js';
import { startCli, type LongRunning } from '../support/cli-process.js';
import { requestReader, type RequestReader } from '../support/requests.js';
import { approveClickBody, slackHeaders, slashCommandBody } from '../support/slack-sign.js';
import { startSlackWebApi, type SlackCall, type SlackWebApi } from '../support/slack-web-api.js';
import { waitFor } from '../support/sim.js';

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
  allowedChannels: [${CHANNEL}]
# Two at once: node-1's reboot and node-4's upgrade go side by side (their pods are under
# different budgets), which keeps the test short. node-1 holds the demo's emptyDir pod.
slot:
  concurrency: 2
drain:
  deleteEmptyDirData: true
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
  let requests: RequestReader;

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
    requests = requestReader(kc);
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

  /** The prompt posted for `node`, once the tick has posted it. */
  const promptFor = (node: string) =>
    waitFor(
      `the prompt for ${node}`,
      () =>
        api
          .callsOf('chat.postMessage')
          .find(
            (c) =>
              c.args['channel'] === CHANNEL &&
              new RegExp(`${node}\\b`).test(String(c.args['text'])) &&
              approveButton(c),
          ),
      60_000,
    );

  /** Alice clicks Approve on the prompt, as Slack sends it: a signed block_actions payload. */
  async function clickApprove(prompt: SlackCall): Promise<void> {
    const body = approveClickBody({
      requestId: approveButton(prompt)!.value!,
      userId: 'U0ALICE',
      channelId: CHANNEL,
      responseUrl: api.responseUrl(),
      ts: String(prompt.response?.['ts']),
      blocks: prompt.args['blocks'],
    });
    const response = await fetch(slackUrl, {
      method: 'POST',
      headers: slackHeaders(SECRET, body),
      body,
    });
    assert.equal(response.status, 200);
  }

  const requestOn = async (node: string) => {
    const read = await core.readNode({ name: node });
    const request: { state?: string; approvals?: { by: string }[] } =
      (await requests.ofNode(node)) ?? {};
    return { node: read, request };
  };

  /** Thread replies under the prompt, and the last in-place edit of the prompt. */
  const threadOf = (prompt: SlackCall) => {
    const ts = String(prompt.response?.['ts']);
    const replies = api
      .callsOf('chat.postMessage')
      .filter((c) => c.args['channel'] === CHANNEL && c.args['thread_ts'] === ts)
      .map((c) => String(c.args['text']));
    const edits = api
      .callsOf('chat.update')
      .filter((c) => c.args['channel'] === CHANNEL && String(c.args['ts']) === ts);
    return { replies, last: edits.at(-1) };
  };

  it('a slash command and approvers’ clicks carry node-1’s reboot and node-4’s upgrade to done, in their threads and in place', async () => {
    // node-2 and node-5 share a reason and so one campaign prompt; node-1's reboot is asked by hand.
    const body = slashCommandBody({
      command: '/maint',
      text: 'reboot node-1 kernel livepatch expired',
      userId: 'U0ALICE',
      channelId: CHANNEL,
      responseUrl: api.responseUrl(),
    });
    const asked = await fetch(slackUrl, {
      method: 'POST',
      headers: slackHeaders(SECRET, body),
      body,
    });
    assert.equal(asked.status, 200);
    const reboot = await promptFor('node-1');
    const upgrade = await promptFor('node-4');
    const bootBefore = (await core.readNode({ name: 'node-1' })).status?.nodeInfo?.bootID;
    await clickApprove(reboot);
    await clickApprove(upgrade);

    for (const node of ['node-1', 'node-4']) {
      await waitFor(
        `${node} done`,
        async () => ((await requestOn(node)).request.state === 'done' ? true : undefined),
        240_000,
      ).catch((error: unknown) => {
        throw new Error(
          `${String(error)}\nserve stdout:\n${serve.stdout()}\nserve stderr:\n${serve.stderr().slice(-4000)}\n` +
            `slack calls: ${api.calls.map((c) => c.method).join(' ')}`,
        );
      });
    }
    const rebooted = await requestOn('node-1');
    assert.notEqual(rebooted.node.status?.nodeInfo?.bootID, bootBefore, 'node-1 has a new boot id');
    const upgraded = await requestOn('node-4');
    assert.equal(upgraded.node.status?.nodeInfo?.kubeletVersion, 'v1.31.4');
    for (const { request } of [rebooted, upgraded]) {
      assert.deepEqual(
        request.approvals?.map((a) => a.by),
        ['U0ALICE'],
      );
    }
    const jobs = await batch.listNamespacedJob({ namespace: 'kubemaint' });
    for (const node of ['node-1', 'node-4']) {
      assert.equal(
        jobs.items.filter((j) => j.metadata?.labels?.['kubemaint.io/node'] === node).length,
        1,
        `one Job for ${node}`,
      );
    }

    const steps: [SlackCall, RegExp[]][] = [
      [reboot, [/approv/i, /drain/i, /reboot/i, /back/i, /done/i]],
      [upgrade, [/approv/i, /drain/i, /upgrad/i, /back/i, /done/i]],
    ];
    for (const [prompt, want] of steps) {
      const thread = await waitFor(
        'the thread to reach done',
        () => {
          const { replies } = threadOf(prompt);
          return replies.some((t) => /done/i.test(t)) ? replies : undefined;
        },
        30_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\nthread so far:\n${threadOf(prompt).replies.join('\n')}`);
      });
      for (const step of want) {
        assert.ok(
          thread.some((t) => step.test(t)),
          `a thread reply matches ${String(step)}:\n${thread.join('\n')}`,
        );
      }
      const { last } = threadOf(prompt);
      assert.match(String(last?.args['text']), /done/i);
      assert.equal(approveButton(last!), undefined, 'the final prompt is plain: no buttons');
    }
    const broken = api.calls.filter((c) => c.violations.length > 0);
    assert.deepEqual(
      broken.map((c) => `${c.method}: ${c.violations.join(', ')}`),
      [],
    );
  });
});
