/**
 * One Slack app for two clusters (issue 22), through the real `serve` of `clusters:` (its Bolt app
 * on the HTTP receiver, correctly signed requests, the Web API stand-in) and two embedded clusters.
 * Staging's prompts go to #stage and production's to #prod; #ops may ask about both; each cluster
 * has its own approvers. Proposals from both appear with their cluster's name and buttons that
 * carry it; approving in one reboots only there; a click whose value was edited to name the other
 * cluster, and an approver of staging clicking in production, are refused and recorded; slash
 * commands name a cluster or look a bare id up in every cluster, refusing when two have it; the
 * digest across clusters names the one that is unreachable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { requestMaintenance } from '../../../src/app/control/commands.js';
import { startServe, type RunningServe } from '../../../src/compose/serve.js';
import { UNAUTHORISED_REASON } from '../../../src/adapters/slack/guard.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { clusterProbes } from '../../support/cluster-serve.js';
import { configOf } from '../../support/config.js';
import {
  executorSettings,
  NOOP_IMAGE,
  runJobsInProcess,
  type InProcessJobs,
} from '../../support/in-process-executor.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';
import { clickBody, slackHeaders, slashCommandBody } from '../../support/slack-sign.js';
import { startSlackWebApi, type SlackWebApi } from '../../support/slack-web-api.js';

const SECRET = 'clusters-signing-secret';
const STAGE = 'CSTAGE';
const PROD = 'CPROD';
const OPS = 'COPS';
const STAGING_APPROVER = 'USTAGE';
const PRODUCTION_APPROVER = 'UPROD';

describe('one Slack app, two clusters (issue 22)', () => {
  const sims = new Map<string, TestSim>();
  const jobs: InProcessJobs[] = [];
  const lines: string[] = [];
  let api: SlackWebApi;
  let serve: RunningServe;
  let url: string;

  before(async () => {
    api = await startSlackWebApi();
    process.env['SLACK_API_URL'] = api.apiUrl;
    for (const name of ['staging', 'production']) {
      const sim = await startTestSim({
        scenario: 'demo',
        scale: 50,
        delays: { jobPodRunMs: 24 * 3_600_000, rebootDowntimeMs: 2_000 },
      });
      sims.set(name, sim);
      jobs.push(runJobsInProcess(sim, executorSettings(1)));
    }
    const config = configOf(
      {
        clusters: [
          { name: 'staging', kubeconfig: { path: sims.get('staging')!.kubeconfigPath } },
          {
            name: 'production',
            kubeconfig: { path: sims.get('production')!.kubeconfigPath },
            slack: { channel: PROD, allowedChannels: [PROD, OPS] },
            approval: { approvers: { users: [PRODUCTION_APPROVER] } },
          },
        ],
        slack: { channel: STAGE, allowedChannels: [STAGE, OPS] },
        approval: { approvers: { users: [STAGING_APPROVER] } },
        kubelet: { enabled: false },
        executor: { image: NOOP_IMAGE, hostPrefix: [] },
        reboot: { command: ['kubemaint-sim-host', 'reboot'] },
        serve: { ops: { port: 0 } },
      },
      { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: SECRET },
    );
    serve = await startServe({
      config,
      listen: { opsPort: 0, slackPort: 0, slackHost: '127.0.0.1', opsHost: '127.0.0.1' },
      out: (text) => void lines.push(text),
      log: pino({ level: 'silent' }),
    });
    // Leader election is on: until serve leads a cluster, its receiver answers "try again" (ADR 0054).
    for (let waited = 0; !serve.loops.every((l) => l.acting()); waited += 50) {
      assert.ok(waited < 60_000, 'serve did not lead every cluster in 60 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const slack = /slack=(http:\/\/\S+\/slack\/events)/.exec(lines.join(''));
    assert.ok(slack, `serve said where Slack is: ${lines.join('')}`);
    url = slack[1]!;
  });
  after(async () => {
    await serve?.stop();
    for (const j of jobs) await j.stop();
    for (const sim of sims.values()) await sim.close().catch(() => undefined);
    await api?.close();
    delete process.env['SLACK_API_URL'];
  });

  const { deps, requestOn, until, bootId } = clusterProbes(() => serve, sims);

  const post = async (body: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: slackHeaders(SECRET, body),
      body,
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return text;
  };
  /** What the app said back through the request's response_url. */
  const answerAt = (responseUrl: string) =>
    waitFor(`the answer at ${responseUrl}`, () => {
      const path = new URL(responseUrl).pathname;
      const call = api.callsOf('response_url').find((c) => c.path === path);
      return call && String(call.args['text']);
    });
  const click = async (actionId: string, value: string, user: string, channel: string) => {
    const responseUrl = api.responseUrl();
    await post(
      clickBody({ actionId, value, userId: user, channelId: channel, responseUrl, ts: '1.0' }),
    );
    return responseUrl;
  };
  const command = async (text: string, user: string, channel: string) => {
    const responseUrl = api.responseUrl();
    const acked = await post(
      slashCommandBody({ command: '/maint', text, userId: user, channelId: channel, responseUrl }),
    );
    // Usage errors, help and windows are answered in the ack itself; the rest through response_url.
    return acked ? String((JSON.parse(acked) as { text: string }).text) : answerAt(responseUrl);
  };
  const prompts = (channel: string) =>
    api
      .callsOf('chat.postMessage')
      .filter((c) => c.args['channel'] === channel && !c.args['thread_ts']);
  const buttonValues = (call: { args: Record<string, unknown> }): string[] =>
    JSON.stringify(call.args['blocks']).match(/"value":"[^"]*"/g) ?? [];

  it('posts each cluster’s proposals to its channel, named, with buttons that carry the cluster', async () => {
    for (const cluster of ['staging', 'production'])
      for (const node of ['node-2', 'node-5'])
        await until(`${cluster}/${node} proposed`, cluster, node, (r) => r.state === 'proposed');
    await waitFor(
      'a prompt in each channel',
      () => prompts(STAGE).length > 0 && prompts(PROD).length > 0,
    );
    const [staging] = prompts(STAGE);
    const [production] = prompts(PROD);
    assert.match(String(staging!.args['text']), /· staging/);
    assert.match(String(production!.args['text']), /· production/);
    assert.ok(buttonValues(staging!).length > 0);
    for (const value of buttonValues(staging!)) assert.match(value, /"value":"staging\//);
    for (const value of buttonValues(production!)) assert.match(value, /"value":"production\//);
  });

  it('refuses a click whose value was edited to name the other cluster, and records it there', async () => {
    const target = (await requestOn('production', 'node-2'))!;
    // Staging's approver, in staging's channel, on a button forged to say production.
    const said = await answerAt(
      await click(SLACK_ACTION.approve, `production/${target.id}`, STAGING_APPROVER, STAGE),
    );
    assert.match(
      said,
      /cannot approve this: kubemaint takes decisions for production only in &lt;#CPROD&gt;, &lt;#COPS&gt;/,
    );
    assert.equal((await requestOn('production', 'node-2'))!.state, 'proposed');
    const campaign = await click(
      SLACK_ACTION.campaignApprove,
      `production/${target.campaign}`,
      STAGING_APPROVER,
      STAGE,
    );
    assert.match(await answerAt(campaign), /for production only in/);
    for (const node of ['node-2', 'node-5'])
      assert.equal((await requestOn('production', node))!.state, 'proposed', node);
    const events = await sims.get('production')!.core.listEventForAllNamespaces();
    assert.ok(
      events.items.some(
        (e) =>
          e.reason === UNAUTHORISED_REASON && e.message?.includes(`Slack user ${STAGING_APPROVER}`),
      ),
      'the refused attempt is recorded in production',
    );
  });

  it('refuses staging’s approver in production’s own channel', async () => {
    const target = (await requestOn('production', 'node-2'))!;
    const said = await answerAt(
      await click(SLACK_ACTION.approve, `production/${target.id}`, STAGING_APPROVER, PROD),
    );
    assert.match(said, /in production: USTAGE is not an approver/);
    assert.equal((await requestOn('production', 'node-2'))!.state, 'proposed');
    // And the same person by slash command, with or without the cluster.
    assert.match(
      await command(`approve production/${target.id}`, STAGING_APPROVER, OPS),
      /not an approver/,
    );
    assert.match(await command(`approve ${target.id}`, STAGING_APPROVER, OPS), /not an approver/);
    assert.equal((await requestOn('production', 'node-2'))!.state, 'proposed');
  });

  it('approving in production reboots there only; staging’s request is unchanged', async () => {
    const target = (await requestOn('production', 'node-2'))!;
    const stagingBefore = (await requestOn('staging', 'node-2'))!;
    const stagingBoot = bootId('staging', 'node-2');
    const productionBoot = bootId('production', 'node-2');
    await click(SLACK_ACTION.approve, `production/${target.id}`, PRODUCTION_APPROVER, PROD);
    await until('production/node-2 done', 'production', 'node-2', (r) => r.state === 'done');
    assert.notEqual(bootId('production', 'node-2'), productionBoot, 'production node-2 rebooted');
    assert.equal(bootId('staging', 'node-2'), stagingBoot, 'staging node-2 untouched');
    const staging = (await requestOn('staging', 'node-2'))!;
    assert.equal(staging.state, 'proposed');
    assert.deepEqual(staging.approvals, stagingBefore.approvals);
    // node-2 is in a campaign: its steps are no replies of their own (ADR 0056); the campaign's
    // digest, edited in place, says done and names the cluster.
    const digests = () =>
      api
        .callsOf('chat.update')
        .filter((c) => c.args['channel'] === PROD && c.args['ts'] === target.slack?.ts)
        .map((c) => JSON.stringify(c.args['blocks']));
    await waitFor('production says done', () =>
      digests().some((t) => /node-2`[^•]*done/.test(t) && /cluster `production`/.test(t)),
    );
    const replies = api
      .callsOf('chat.postMessage')
      .filter((c) => c.args['channel'] === PROD && c.args['thread_ts']);
    assert.deepEqual(replies, [], 'no reply per step');
  });

  it('takes a click on a prompt from before clusters: (a bare id) in the cluster that has it', async () => {
    const target = (await requestOn('staging', 'node-5'))!;
    await click(SLACK_ACTION.approve, target.id, STAGING_APPROVER, STAGE);
    await until('staging/node-5 approved', 'staging', 'node-5', (r) => r.state !== 'proposed');
    assert.equal((await requestOn('production', 'node-5'))!.state, 'proposed');
  });

  it('routes slash commands by cluster, and refuses a bare id two clusters have', async () => {
    assert.match(await command('help', STAGING_APPROVER, OPS), /reboot staging\/ip-10-0-1-15/);
    const asked = await command('reboot staging/node-3 kernel', STAGING_APPROVER, STAGE);
    assert.match(asked, /^\*staging\*: /);
    assert.equal((await requestOn('staging', 'node-3'))?.state, 'proposed');
    assert.equal(await requestOn('production', 'node-3'), undefined);
    assert.match(
      await command('status production', STAGING_APPROVER, STAGE),
      /kubemaint answers for production in <#CPROD>, <#COPS>/,
    );
    assert.match(
      await command('reboot mars/node-3', STAGING_APPROVER, STAGE),
      /no cluster named `mars`/,
    );
    assert.match(await command('pause', STAGING_APPROVER, OPS), /which cluster\?/);
    // The same id in both clusters (ids are random; here one is made to collide on purpose).
    const staging = (await requestOn('staging', 'node-3'))!;
    const bytes = Buffer.from(staging.id.slice(2), 'hex');
    const twin = await requestMaintenance(
      { ...deps('production'), randomBytes: () => new Uint8Array(bytes) },
      { node: 'node-3', action: 'reboot', by: { kind: 'person', id: PRODUCTION_APPROVER } },
    );
    assert.equal(twin.request?.id, staging.id);
    const refused = await command(`approve ${staging.id}`, PRODUCTION_APPROVER, OPS);
    assert.match(refused, /is in 2 clusters \(staging, production\); nothing was done/);
    for (const cluster of ['staging', 'production'])
      assert.equal((await requestOn(cluster, 'node-3'))!.state, 'proposed', cluster);
  });

  it('answers /maint status with a digest across clusters that names the unreachable one', async () => {
    const both = await command('status', STAGING_APPROVER, OPS);
    assert.match(both, /\*staging\*: running \(not paused\)/);
    assert.match(both, /\*production\*: running \(not paused\)/);
    assert.match(both, /staging.*open:/s);
    await sims.get('production')!.stop();
    const one = await command('status', STAGING_APPROVER, OPS);
    assert.match(one, /\*staging\*: running/);
    assert.match(one, /\*production\*: :warning: unreachable: /);
  });
});
