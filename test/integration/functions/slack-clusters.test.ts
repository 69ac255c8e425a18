/**
 * The Slack function with `clusters:` (issue 22): its cold path opens every cluster and serves
 * them from one Bolt app on the AwsLambdaReceiver, as `serve` does. Through the function's own
 * handler, with signed API Gateway events and the Web API stand-in: a click on production's
 * button approves in production only, and production's buttons refuse staging's approver; `/maint
 * status` from a channel both clusters answer in is one digest naming both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runTick } from '../../../src/app/control/tick.js';
import { openSlackApp, type SlackApp } from '../../../src/compose/lambda/slack-app.js';
import { silentLogger } from '../../../src/log.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { testControlDeps } from '../../support/control.js';
import { requestReader } from '../../support/requests.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';
import { clickBody, slackHeaders, slashCommandBody } from '../../support/slack-sign.js';
import { startSlackWebApi, type SlackWebApi } from '../../support/slack-web-api.js';
import { apiGatewayEvent } from './api-gateway.js';

const SECRET = 'fe0c2b1d5a7e4f3b9c8d6e5f4a3b2c1d';

describe('the Slack function serves every cluster of clusters:', () => {
  const sims = new Map<string, TestSim>();
  let api: SlackWebApi;
  let app: SlackApp;
  const deferred: Promise<void>[] = [];

  before(async () => {
    api = await startSlackWebApi();
    for (const name of ['staging', 'production']) {
      const sim = await startTestSim({ scenario: 'demo' });
      sims.set(name, sim);
      await runTick(testControlDeps(sim)); // proposes node-2 and node-5
    }
    const config = [
      'clusters:',
      '  - name: staging',
      `    kubeconfig: { path: ${sims.get('staging')!.kubeconfigPath} }`,
      '  - name: production',
      `    kubeconfig: { path: ${sims.get('production')!.kubeconfigPath} }`,
      '    slack: { channel: CPROD, allowedChannels: [CPROD, COPS] }',
      '    approval: { approvers: { users: [UPROD] } }',
      'slack: { channel: CSTAGE, allowedChannels: [CSTAGE, COPS] }',
      'approval: { approvers: { users: [USTAGE] } }',
      '',
    ].join('\n');
    app = await openSlackApp(
      {
        KUBEMAINT_CONFIG_YAML: config,
        SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_BOT_ID: 'BBOT',
        SLACK_BOT_USER_ID: 'UBOT',
        SLACK_API_URL: api.apiUrl,
      },
      silentLogger(),
      (work) => void deferred.push(work()),
    );
  });
  after(async () => {
    for (const sim of sims.values()) await sim.close();
    await api?.close();
  });

  /** Send one signed request through the function's handler and run what it deferred. */
  const send = async (body: string) => {
    const response = await app.handler(apiGatewayEvent(body, slackHeaders(SECRET, body)), {});
    assert.equal(response.statusCode, 200);
    while (deferred.length > 0) await Promise.all(deferred.splice(0));
    await app.flush(5_000);
  };
  const said = (responseUrl: string) => {
    const path = new URL(responseUrl).pathname;
    return String(api.callsOf('response_url').find((c) => c.path === path)?.args['text']);
  };
  const requestOn = (cluster: string, node: string) =>
    requestReader(sims.get(cluster)!.kubeconfigPath).ofNode(node);
  const click = async (value: string, user: string, channel: string) => {
    const responseUrl = api.responseUrl();
    await send(
      clickBody({
        actionId: SLACK_ACTION.approve,
        value,
        userId: user,
        channelId: channel,
        responseUrl,
        ts: '1.0',
      }),
    );
    return said(responseUrl);
  };

  it('approves in the cluster the button names, by that cluster’s approvers only', async () => {
    const target = (await requestOn('production', 'node-2'))!;
    assert.match(
      await click(`production/${target.id}`, 'USTAGE', 'CPROD'),
      /in production: USTAGE is not an approver/,
    );
    assert.equal((await requestOn('production', 'node-2'))?.state, 'proposed');
    await click(`production/${target.id}`, 'UPROD', 'CPROD');
    await waitFor(
      'production approved',
      async () => (await requestOn('production', 'node-2'))?.state === 'approved',
    );
    assert.equal((await requestOn('staging', 'node-2'))?.state, 'proposed');
  });

  it('answers /maint status with one digest naming both clusters', async () => {
    const responseUrl = api.responseUrl();
    await send(
      slashCommandBody({
        command: '/maint',
        text: 'status',
        userId: 'USTAGE',
        channelId: 'COPS',
        responseUrl,
      }),
    );
    const digest = said(responseUrl);
    assert.match(digest, /\*staging\*: running \(not paused\)/);
    assert.match(digest, /\*production\*: running \(not paused\)/);
  });
});
