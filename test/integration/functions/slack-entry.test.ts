/**
 * functions/slack.ts as Lambda runs it: config and secrets from a local SSM stand-in, the real Bolt
 * app on its AwsLambdaReceiver, a signed API Gateway v2 event for `/maint approve <id>`, the
 * asynchronous self-invocation queued at a local Lambda stand-in and replayed, and the request on the
 * sim's node approved in the end, exactly once. Ack first (ADR 0018): every command and click is
 * answered with an empty 200 before the app runs; what the app acks with reaches the person through
 * response_url after the replay, and an Approve click approves there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AwsEvent, DeferredEvent } from '../../../src/compose/lambda/slack-handler.js';
import { runTick } from '../../../src/app/control/tick.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { testControlDeps } from '../../support/control.js';
import { requestReader } from '../../support/requests.js';
import { approveClickBody, slackHeaders, slashCommandBody } from '../../support/slack-sign.js';
import { startSlackWebApi, type SlackWebApi } from '../../support/slack-web-api.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import { startAwsStub, type AwsStub } from '../../support/aws-stub.js';

const SECRET = 'fe0c2b1d5a7e4f3b9c8d6e5f4a3b2c1d';

describe('functions/slack.ts entry', () => {
  let sim: TestSim;
  let aws: AwsStub;
  let slack: SlackWebApi;
  let handler: (event: AwsEvent | DeferredEvent, context: unknown) => Promise<unknown>;

  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
    slack = await startSlackWebApi();
    const config = [
      'cluster:',
      '  type: kubeconfig',
      '  name: demo',
      '  kubeconfig:',
      `    path: ${sim.kubeconfigPath}`,
      'slack:',
      '  channel: C0MAINT',
      '  allowedChannels: [C0MAINT]',
      'approval:',
      '  approvers:',
      '    users: [U0ALICE]',
      '',
    ].join('\n');
    aws = await startAwsStub({
      '/kubemaint/ci/config': config,
      '/kubemaint/ci/slack-bot-token': 'xoxb-1-2-abc',
      '/kubemaint/ci/slack-signing-secret': SECRET,
    });
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_ENDPOINT_URL_SSM: aws.url,
      AWS_ENDPOINT_URL_LAMBDA: aws.url,
      AWS_LAMBDA_FUNCTION_NAME: 'kubemaint-ci-slack',
      KUBEMAINT_CONFIG_YAML_SSM_PARAMETER: '/kubemaint/ci/config',
      SLACK_BOT_TOKEN_SSM_PARAMETER: '/kubemaint/ci/slack-bot-token',
      SLACK_SIGNING_SECRET_SSM_PARAMETER: '/kubemaint/ci/slack-signing-secret',
      SLACK_API_URL: slack.apiUrl,
      SLACK_BOT_ID: 'B0TEST',
      SLACK_BOT_USER_ID: 'U0BOT',
      LOG_LEVEL: 'silent',
    });
    ({ handler } = await import('../../../functions/slack.js'));
  });
  after(async () => {
    await sim.close();
    await aws.close();
    await slack.close();
  });

  const requestOn = (node: string): Promise<MaintenanceRequest | undefined> =>
    requestReader(sim.kubeconfigPath).ofNode(node);

  const slashCommand = (text: string, userId: string): AwsEvent =>
    signedEvent(
      slashCommandBody({
        command: '/maint',
        text,
        userId,
        channelId: 'C0MAINT',
        responseUrl: slack.responseUrl(),
      }),
    );
  const signedEvent = (body: string): AwsEvent => {
    const headers = Object.fromEntries(
      Object.entries(slackHeaders(SECRET, body)).map(([k, v]) => [k.toLowerCase(), v]),
    );
    return {
      version: '2.0',
      routeKey: 'POST /slack/events',
      rawPath: '/slack/events',
      rawQueryString: '',
      headers,
      requestContext: { http: { method: 'POST', path: '/slack/events' }, stage: '$default' },
      body: Buffer.from(body).toString('base64'),
      isBase64Encoded: true,
    };
  };

  /** Lambda delivering every queued asynchronous invocation, as it would a moment later. */
  const deliverQueued = async (): Promise<number> => {
    const queued = aws.invocations.splice(0);
    for (const { event } of queued) await handler(event as DeferredEvent, {});
    return queued.length;
  };

  it('approves a proposed request from a slash command, through the deferred invocation', async () => {
    await runTick(testControlDeps(sim));
    const proposed = await requestOn('node-2');
    assert.equal(proposed?.state, 'proposed');

    const answer = (await handler(slashCommand(`approve ${proposed.id}`, 'U0ALICE'), {})) as {
      statusCode: number;
      body: string;
    };
    assert.deepEqual(answer, { statusCode: 200, body: '' });
    // The app reads the cluster after the ack, so nothing changed yet: the work waits in the queue.
    assert.deepEqual(
      aws.invocations.map((i) => i.functionName),
      ['kubemaint-ci-slack'],
    );
    assert.equal((await requestOn('node-2'))?.state, 'proposed');
    const answered = slack.calls.filter((c) => c.method === 'response_url').length;
    assert.equal(await deliverQueued(), 1);
    const approved = await requestOn('node-2');
    assert.equal(approved?.state, 'approved');
    assert.equal(approved.approvals?.length, 1);
    assert.equal(
      slack.calls.filter((c) => c.method === 'response_url').length,
      answered + 1,
      'the replay answered through response_url',
    );
    assert.deepEqual(
      slack.calls.flatMap((c) => c.violations),
      [],
    );
  });

  it('refuses the same command from someone who is not an approver', async () => {
    const proposed = await requestOn('node-5');
    assert.equal(proposed?.state, 'proposed');
    await handler(slashCommand(`approve ${proposed.id}`, 'U0MALLORY'), {});
    await deliverQueued();
    assert.equal((await requestOn('node-5'))?.state, 'proposed');
  });

  it('what the app acks with (help) reaches the person through response_url after the replay', async () => {
    const answer = await handler(slashCommand('help', 'U0ALICE'), {});
    assert.deepEqual(answer, { statusCode: 200, body: '' });
    const before = slack.callsOf('response_url').length;
    assert.equal(await deliverQueued(), 1);
    const late = slack.callsOf('response_url').slice(before);
    assert.equal(late.length, 1);
    assert.match(String(late[0]!.args['text']), /approve/);
    assert.equal(late[0]!.args['response_type'], 'ephemeral');
  });

  it('an Approve click is answered empty at once and approves in the replay', async () => {
    await runTick(testControlDeps(sim));
    const proposed = (await requestReader(sim.kubeconfigPath).all()).find(
      (r) => r.state === 'proposed',
    );
    assert.ok(proposed, 'a proposed request to click on');
    const click = approveClickBody({
      requestId: proposed.id,
      userId: 'U0ALICE',
      channelId: 'C0MAINT',
      responseUrl: slack.responseUrl(),
      ts: '1700000000.000100',
    });
    assert.deepEqual(await handler(signedEvent(click), {}), { statusCode: 200, body: '' });
    assert.equal((await requestOn(proposed.node))?.state, 'proposed');
    assert.equal(await deliverQueued(), 1);
    assert.equal((await requestOn(proposed.node))?.state, 'approved');
  });
});
