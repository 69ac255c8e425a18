/**
 * The Slack Lambda's hand-off, with a real Bolt App on its AwsLambdaReceiver and signed API Gateway
 * v2 events: a listener that defers answers Slack at once and queues one asynchronous invocation (over
 * SigV4 to a local Lambda stand-in); replaying that invocation's event runs the deferred work.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { App, AwsLambdaReceiver } from '@slack/bolt';
import {
  createSlackHandler,
  DEFERRED_KIND,
  type Defer,
  type DeferredEvent,
} from '../../../src/compose/lambda/slack-handler.js';
import { invokeAsync } from '../../../src/adapters/aws/lambda-invoke.js';
import { silentLogger } from '../../../src/log.js';
import { slackHeaders, slashCommandBody } from '../../support/slack-sign.js';
import { startSlackWebApi, type SlackWebApi } from '../../support/slack-web-api.js';
import { apiGatewayEvent } from './api-gateway.js';
import { startAwsStub, type AwsStub } from '../../support/aws-stub.js';

const SECRET = 'fe0c2b1d5a7e4f3b9c8d6e5f4a3b2c1d';

function createBolt(slack: SlackWebApi) {
  return async (defer: Defer) => {
    const receiver = new AwsLambdaReceiver({ signingSecret: SECRET, logger: quietLogger() });
    const app = new App({
      receiver,
      token: 'xoxb-test',
      botId: 'B0TEST',
      botUserId: 'U0BOT',
      clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } },
    });
    app.command('/maint', async ({ command, ack, respond }) => {
      if (command.text === 'help') {
        await ack('help text');
        return;
      }
      await ack(`scanning ${command.text}…`);
      if (command.text === 'nested') {
        defer(async () => {
          await respond('first part');
          defer(async () => void (await respond('second part')));
        });
        return;
      }
      defer(async () => {
        await respond({ response_type: 'ephemeral', text: `scan of ${command.text} done` });
      });
    });
    return receiver.start();
  };
}

describe('slack handler: defer through an asynchronous self-invocation', () => {
  let slack: SlackWebApi;
  let aws: AwsStub;
  before(async () => {
    slack = await startSlackWebApi();
    aws = await startAwsStub({});
  });
  after(async () => {
    await slack.close();
    await aws.close();
  });

  const command = (text: string) => {
    const body = slashCommandBody({
      command: '/maint',
      text,
      userId: 'U0ALICE',
      channelId: 'C0MAINT',
      responseUrl: slack.responseUrl(),
    });
    return apiGatewayEvent(body, slackHeaders(SECRET, body));
  };
  const responses = () => slack.calls.filter((c) => c.method === 'response_url');

  it('acks at once, hands off one invocation over SigV4, and the replay runs the work', async () => {
    const handler = createSlackHandler({
      createHandler: createBolt(slack),
      handOff: async (event) => {
        await invokeAsync('kubemaint-ci-slack', event, {
          region: 'us-east-1',
          credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
          now: () => new Date(),
          endpoint: aws.url,
        });
      },
      log: silentLogger(),
    });
    const before = responses().length;
    const answer = await handler(command('fleet'), {});
    assert.ok('statusCode' in answer);
    assert.equal(answer.statusCode, 200);
    assert.match(answer.body, /scanning fleet/);
    assert.equal(responses().length, before, 'the slow answer is not sent in the first invocation');
    assert.equal(aws.invocations.length, 1);
    const queued = aws.invocations[0]!;
    assert.equal(queued.functionName, 'kubemaint-ci-slack');
    const sent = aws.requests.at(-1)!;
    assert.equal(sent.headers['x-amz-invocation-type'], 'Event');
    assert.match(sent.headers.authorization ?? '', /\/us-east-1\/lambda\/aws4_request, /);

    const replay = queued.event as DeferredEvent;
    assert.equal(replay.kind, DEFERRED_KIND);
    const result = await handler(replay, {});
    assert.deepEqual(result, { kind: DEFERRED_KIND, ran: 1, failed: 0 });
    const answered = responses().slice(before);
    assert.equal(answered.length, 1);
    assert.equal(answered[0]!.args.text, 'scan of fleet done');
  });

  it('work deferred by deferred work runs too, and settle runs before every return', async () => {
    const handOffs: DeferredEvent[] = [];
    let settled = 0;
    const handler = createSlackHandler({
      createHandler: createBolt(slack),
      handOff: async (event) => void handOffs.push(event),
      settle: async () => void (settled += 1),
      log: silentLogger(),
    });
    await handler(command('nested'), {});
    assert.equal(handOffs.length, 1);
    assert.equal(settled, 1);
    const before = responses().length;
    const result = await handler(handOffs[0]!, {});
    assert.deepEqual(result, { kind: DEFERRED_KIND, ran: 2, failed: 0 });
    assert.deepEqual(
      responses()
        .slice(before)
        .map((c) => c.args.text),
      ['first part', 'second part'],
    );
    assert.equal(settled, 2);
  });

  it('a listener that does not defer queues nothing', async () => {
    const handOffs: DeferredEvent[] = [];
    const handler = createSlackHandler({
      createHandler: createBolt(slack),
      handOff: async (event) => void handOffs.push(event),
      log: silentLogger(),
    });
    const answer = await handler(command('help'), {});
    assert.ok('statusCode' in answer);
    assert.equal(answer.body, 'help text');
    assert.equal(handOffs.length, 0);
  });

  it('a failed hand-off runs the work inline instead of dropping it', async () => {
    const handler = createSlackHandler({
      createHandler: createBolt(slack),
      handOff: async () => {
        throw new Error('AccessDeniedException');
      },
      log: silentLogger(),
    });
    const before = responses().length;
    const answer = await handler(command('pool-a'), {});
    assert.ok('statusCode' in answer);
    assert.equal(answer.statusCode, 200);
    const answered = responses().slice(before);
    assert.deepEqual(
      answered.map((c) => c.args.text),
      ['scan of pool-a done'],
    );
  });

  it('a request with a bad signature is refused and hands nothing off, even as a replay', async () => {
    const handOffs: DeferredEvent[] = [];
    const handler = createSlackHandler({
      createHandler: createBolt(slack),
      handOff: async (event) => void handOffs.push(event),
      log: silentLogger(),
    });
    const body = slashCommandBody({
      command: '/maint',
      text: 'fleet',
      userId: 'U0MALLORY',
      channelId: 'C0MAINT',
      responseUrl: slack.responseUrl(),
    });
    const forged = apiGatewayEvent(body, slackHeaders('not-the-secret', body));
    const answer = await handler(forged, {});
    assert.ok('statusCode' in answer);
    assert.equal(answer.statusCode, 401);
    assert.equal(handOffs.length, 0);
    const before = responses().length;
    const replayed = await handler(
      { kind: DEFERRED_KIND, deferredAt: new Date().toISOString(), event: forged },
      {},
    );
    assert.deepEqual(replayed, { kind: DEFERRED_KIND, ran: 0, failed: 0 });
    assert.equal(responses().length, before);
  });
});

function quietLogger() {
  const noop = () => undefined;
  return {
    debug: noop,
    info: noop,
    warn: noop,
    error: noop,
    setLevel: noop,
    getLevel: () => 'error' as never,
    setName: noop,
  };
}
