/**
 * The rest of the command grammar end to end (slots, pause/resume, release, windows, scan, upgrade),
 * the stalled-drain buttons and the details modal on the HTTP app, and the same app on the
 * AwsLambdaReceiver through `createLambdaHandler` with an API Gateway v2 event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestPrompt } from '../../../templates/slack/index.js';
import { approveRequest, requestMaintenance } from '../../../src/app/control/commands.js';
import { runTick } from '../../../src/app/control/tick.js';
import { createLambdaHandler } from '../../../src/adapters/slack/app.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { silentLogger } from '../../../src/log.js';
import { slackHeaders, slashCommandBody } from '../../support/slack-sign.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import { requestOn, SECRET, startHarness, type Harness } from '../../support/slack-app.js';

describe('Slack app: commands, drain answers, details', () => {
  let sim: TestSim;
  let h: Harness;
  const answerTo = async (text: string, user = 'UALICE'): Promise<string> => {
    const from = h.api.callsOf('response_url').length;
    const ack = await h.command(text, user);
    assert.equal(ack.status, 200);
    await h.slack.idle();
    return [
      ack.text,
      ...h.api
        .callsOf('response_url')
        .slice(from)
        .map((c) => String(c.args['text'])),
    ].join('\n');
  };

  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 20, delays: { jobPodRunMs: 3_600_000 } });
    h = await startHarness(sim);
  });
  after(async () => {
    await h?.close();
    await sim?.close();
  });

  it('windows answers in the ack; scan says when it is not offered here', async () => {
    const windows = await answerTo('windows');
    assert.match(windows, /\(UTC\): open now: no windows are configured, so always open/);
    assert.match(windows, /always open \(no windows configured\)/);
    assert.match(await answerTo('scan'), /scan is not available here/);
  });

  it('upgrade proposes one minor towards the apiserver; a wrong version is explained', async () => {
    assert.match(await answerTo('upgrade node-4'), /upgrade node-4: r-[0-9a-f]{6} is proposed/);
    assert.equal((await requestOn(sim, 'node-4'))?.targetVersion, 'v1.31.4');
    assert.match(await answerTo('upgrade node-1 latest'), /`latest` is not a kubelet version/);
  });

  it('pause and resume need an approver and change the pause switch', async () => {
    assert.match(await answerTo('pause incident 4711', 'UMALLORY'), /UMALLORY is not an approver/);
    assert.equal((await h.deps.cluster.readPause()).paused, false);
    assert.match(await answerTo('pause incident 4711'), /paused by UALICE: incident 4711/);
    assert.match(await answerTo('status'), /\*paused\* by UALICE .*: incident 4711/);
    assert.match(await answerTo('resume'), /resumed by UALICE/);
    assert.equal((await h.deps.cluster.readPause()).paused, false);
  });

  it('drain buttons record the decision on the running request and answer the question', async () => {
    const proposed = await requestMaintenance(h.deps, {
      node: 'node-1',
      action: 'reboot',
      by: { kind: 'person', id: 'UREQ' },
    });
    const id = proposed.request!.id;
    await approveRequest(h.deps, id, { kind: 'person', id: 'UBOB' });
    await runTick(h.deps);
    assert.equal((await requestOn(sim, 'node-1'))?.state, 'running');
    // Every configured slot is listed, free ones included (the fleet read of issue 19).
    assert.match(await answerTo('slots'), /`kubemaint-slot-0` free/);
    assert.match(
      await answerTo('release kubemaint-slot-0'),
      /no slot kubemaint-slot-0; slots are not created yet/,
    );

    const question = {
      ts: '1700000900.1',
      blocks: [
        { type: 'actions', elements: [{ type: 'button', action_id: SLACK_ACTION.drainWait }] },
      ],
    };
    await h.click(SLACK_ACTION.drainForce, id, 'UMALLORY', question);
    await h.slack.idle();
    assert.equal((await requestOn(sim, 'node-1'))?.drainDecision, undefined);
    await h.click(SLACK_ACTION.drainWait, id, 'UALICE', question);
    await h.slack.idle();
    const decided = await requestOn(sim, 'node-1');
    assert.equal(decided?.drainDecision?.decision, 'wait');
    assert.equal(decided?.drainDecision?.by, 'UALICE');
    const edit = h.api
      .callsOf('chat.update')
      .filter((c) => c.args['ts'] === question.ts)
      .at(-1);
    assert.match(String(edit?.args['text']), /<@UALICE> decided to keep waiting for node-1/);
  });

  it('details opens the modal at once and fills in the preview after', async () => {
    const request = (await requestOn(sim, 'node-4'))!;
    const prompt = {
      ts: '1700001000.1',
      blocks: requestPrompt(request, { cluster: 'sim', timeZone: 'UTC', now: new Date() }).blocks,
    };
    await h.click(SLACK_ACTION.details, request.id, 'UMALLORY', prompt);
    await h.slack.idle();
    const opened = h.api.callsOf('views.open').at(-1);
    assert.match(JSON.stringify(opened?.args['view']), new RegExp(request.id));
    const updated = h.api.callsOf('views.update').at(-1);
    assert.equal(
      updated?.args['external_id'],
      (opened?.args['view'] as { external_id?: string }).external_id,
    );
    assert.notEqual(
      JSON.stringify(updated?.args['view']),
      JSON.stringify(opened?.args['view']),
      'the preview added to the modal',
    );
    assert.deepEqual(
      h.api.calls.flatMap((c) => c.violations),
      [],
    );
  });
});

describe('Slack app on the AwsLambdaReceiver', () => {
  let sim: TestSim;
  let h: Harness;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 20 });
    h = await startHarness(sim);
  });
  after(async () => {
    await h?.close();
    await sim?.close();
  });

  it('answers a signed API Gateway v2 event and refuses a bad signature', async () => {
    const handler = createLambdaHandler({
      deps: h.deps,
      settings: { command: '/maint', allowedChannels: [], cluster: 'sim' },
      signingSecret: SECRET,
      botToken: 'xoxb-test',
      botId: 'BBOT',
      botUserId: 'UBOT',
      slackApiUrl: h.api.apiUrl,
      log: silentLogger(),
    });
    const event = (body: string, secret: string) => ({
      version: '2.0',
      routeKey: 'POST /slack/events',
      rawPath: '/slack/events',
      rawQueryString: '',
      headers: Object.fromEntries(
        Object.entries(slackHeaders(secret, body)).map(([k, v]) => [k.toLowerCase(), v]),
      ),
      body: Buffer.from(body).toString('base64'),
      isBase64Encoded: true,
      requestContext: {},
    });
    const from = h.api.callsOf('response_url').length;
    const body = (text: string) =>
      slashCommandBody({
        command: '/maint',
        text,
        userId: 'UALICE',
        channelId: 'CANY',
        responseUrl: h.api.responseUrl(),
      });
    const help = await handler(event(body('help'), SECRET), {});
    assert.equal(help.statusCode, 200);
    assert.match(help.body, /\/maint approve r-7f3a9c/);
    const status = await handler(event(body('status node-2'), SECRET), {});
    assert.equal(status.statusCode, 200);
    // Deferred work finished before the handler returned (Lambda freezes afterwards).
    assert.match(
      h.api
        .callsOf('response_url')
        .slice(from)
        .map((c) => String(c.args['text']))
        .join('\n'),
      /\*node-2\*/,
    );
    const forged = await handler(event(body('help'), 'wrong'), {});
    assert.equal(forged.statusCode, 401);
  });
});
