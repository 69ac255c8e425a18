/**
 * The Slack Lambda's cold path (issue 15): a request Slack did not sign is answered 401 before the
 * function reads its config from SSM, opens the control plane or loads Bolt. With the local SSM
 * stand-in counting every call: forgeries the headers give away (none, malformed, stale) cost no SSM
 * call even on a cold start; a well-formed wrong signature costs none when the signing secret is in
 * the environment or already read, and at most the one read of the signing secret per container,
 * never the config or the bot token; a signed request goes on to the cold path, which does not
 * read the signing secret again. A signed slash command or click is answered before the cold path
 * too (ack first, ADR 0018): one asynchronous invocation queued, nothing loaded; a modal submission
 * goes on to the cold path. And slack.ts itself imports nothing heavy.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createSlackEntry } from '../../../functions/slack.js';
import { silentLogger } from '../../../src/log.js';
import { interactionBody, slackHeaders, slashCommandBody } from '../../support/slack-sign.js';
import { apiGatewayEvent } from './api-gateway.js';
import { startAwsStub, type AwsStub } from '../../support/aws-stub.js';

const SECRET = 'fe0c2b1d5a7e4f3b9c8d6e5f4a3b2c1d';
const PARAMETERS = {
  '/kubemaint/ci/config': 'cluster:\n  type: in-cluster\n',
  '/kubemaint/ci/slack-bot-token': 'xoxb-1-2-abc',
  '/kubemaint/ci/slack-signing-secret': SECRET,
};

/** The event API Gateway would hand over for these headers and body. */
const event = (headers: Record<string, string>, text: string) => apiGatewayEvent(text, headers);

const body = slashCommandBody({
  command: '/maint',
  text: 'approve r-7f3a9c',
  userId: 'U0MALLORY',
  channelId: 'C0MAINT',
  responseUrl: 'http://127.0.0.1:9/resp',
});
const now = Math.floor(Date.now() / 1000);
const signed = slackHeaders(SECRET, body, now);

/** What a forger can send: all but the last give themselves away by their headers. */
const FORGERIES: [string, Record<string, string>][] = [
  ['no signature', { 'Content-Type': 'application/x-www-form-urlencoded' }],
  ['a signature that is not v0', { ...signed, 'X-Slack-Signature': 'v1=abc' }],
  ['no timestamp', { 'X-Slack-Signature': signed['X-Slack-Signature']! }],
  ['a stale timestamp', slackHeaders(SECRET, body, now - 600)],
  ['a timestamp from the future', slackHeaders(SECRET, body, now + 600)],
];
const WRONG_SECRET = slackHeaders('not-the-secret', body, now);

describe('the Slack function answers forgeries before its cold path', () => {
  let aws: AwsStub;
  before(async () => {
    aws = await startAwsStub(PARAMETERS);
  });
  after(() => aws.close());

  /** A fresh container: nothing read, nothing loaded. */
  function container(extra: Record<string, string> = {}) {
    const loads: Record<string, string | undefined>[] = [];
    const handler = createSlackEntry(
      {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_ENDPOINT_URL_SSM: aws.url,
        AWS_ENDPOINT_URL_LAMBDA: aws.url,
        AWS_LAMBDA_FUNCTION_NAME: 'kubemaint-ci-slack',
        KUBEMAINT_CONFIG_YAML_SSM_PARAMETER: '/kubemaint/ci/config',
        SLACK_BOT_TOKEN_SSM_PARAMETER: '/kubemaint/ci/slack-bot-token',
        SLACK_SIGNING_SECRET_SSM_PARAMETER: '/kubemaint/ci/slack-signing-secret',
        ...extra,
      },
      {
        log: silentLogger(),
        // The cold path, counted: what it would read is recorded, Bolt is never built here.
        loadApp: async () => ({
          openSlackApp: async (env) => {
            loads.push({ ...env });
            return {
              handler: async () => ({ statusCode: 200, body: 'ok' }),
              flush: async () => {},
            };
          },
        }),
      },
    );
    return { handler, loads };
  }
  const ssmCalls = () =>
    aws.requests
      .filter((r) => r.headers['x-amz-target'] === 'AmazonSSM.GetParameter')
      .map((r) => (JSON.parse(r.body) as { Name: string }).Name);

  for (const [what, headers] of FORGERIES) {
    it(`${what}: 401 on a cold start, with no SSM call and no cold path`, async () => {
      aws.requests.length = 0;
      const { handler, loads } = container();
      const answer = (await handler(event(headers, body), {})) as { statusCode: number };
      assert.equal(answer.statusCode, 401);
      assert.deepEqual(ssmCalls(), []);
      assert.equal(loads.length, 0);
    });
  }

  it('a wrong signature with the signing secret in the environment: 401, no SSM call', async () => {
    aws.requests.length = 0;
    const { handler, loads } = container({ SLACK_SIGNING_SECRET: SECRET });
    for (let i = 0; i < 20; i++) {
      const answer = (await handler(event(WRONG_SECRET, body), {})) as { statusCode: number };
      assert.equal(answer.statusCode, 401);
    }
    assert.deepEqual(ssmCalls(), []);
    assert.equal(loads.length, 0);
  });

  it('a wrong signature with the secret in SSM: one read of the signing secret per container, nothing else', async () => {
    aws.requests.length = 0;
    const { handler, loads } = container();
    for (let i = 0; i < 20; i++) {
      const tampered = event(signed, body.replace('U0MALLORY', 'U0ALICE'));
      const answers = await Promise.all([
        handler(tampered, {}),
        handler(event(WRONG_SECRET, body), {}),
      ]);
      for (const answer of answers)
        assert.equal((answer as { statusCode: number }).statusCode, 401);
    }
    assert.deepEqual(ssmCalls(), ['/kubemaint/ci/slack-signing-secret']);
    assert.equal(loads.length, 0, 'neither the config nor Bolt');
  });

  it('a signed slash command is answered before the cold path: one invocation queued, nothing loaded', async () => {
    aws.requests.length = 0;
    aws.invocations.length = 0;
    const { handler, loads } = container();
    const answer = (await handler(event(signed, body), {})) as { statusCode: number; body: string };
    assert.deepEqual(answer, { statusCode: 200, body: '' });
    assert.equal(loads.length, 0, 'neither the config nor Bolt');
    assert.deepEqual(ssmCalls(), ['/kubemaint/ci/slack-signing-secret']);
    assert.deepEqual(
      aws.invocations.map((i) => (i.event as { ackedEmpty?: boolean }).ackedEmpty),
      [true],
    );
  });

  it('a signed modal submission goes on to the cold path, which does not read the signing secret again', async () => {
    aws.requests.length = 0;
    aws.invocations.length = 0;
    const { handler, loads } = container();
    const submission = interactionBody({
      type: 'view_submission',
      user: { id: 'U0ALICE' },
      view: { callback_id: 'kubemaint-reject', private_metadata: '{}', state: { values: {} } },
    });
    const headers = slackHeaders(SECRET, submission, now);
    const answer = (await handler(event(headers, submission), {})) as { statusCode: number };
    assert.equal(answer.statusCode, 200);
    assert.equal(loads.length, 1);
    assert.equal(loads[0]?.['SLACK_SIGNING_SECRET'], SECRET);
    assert.deepEqual(ssmCalls(), ['/kubemaint/ci/slack-signing-secret']);
    assert.equal(aws.invocations.length, 0);
  });

  it('a slash command whose hand-off fails is answered through the app in this invocation', async () => {
    const { handler, loads } = container({ AWS_ENDPOINT_URL_LAMBDA: 'http://127.0.0.1:9' });
    const answer = (await handler(event(signed, body), {})) as { statusCode: number };
    assert.equal(answer.statusCode, 200);
    assert.equal(loads.length, 1, 'the app ran here instead');
  });
});

describe('slack.ts imports nothing heavy', () => {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  /** The packages a module reaches through its static (non-type) imports. */
  function packagesOf(file: string, seen = new Set<string>(), out = new Set<string>()) {
    if (seen.has(file)) return out;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, clause = '', from = ''] of source.matchAll(
      /^(?:import|export)\s+([^;]*?)\s+from\s+'([^']+)';/gms,
    )) {
      if (/^type\s/.test(clause)) continue;
      if (from.startsWith('.'))
        packagesOf(resolve(dirname(file), from.replace(/\.js$/, '.ts')), seen, out);
      else out.add(from);
    }
    return out;
  }

  it("before the gate: pino, AWS's signer and Node built-ins only (Bolt, the kube client, zod, yaml and the AWS credential chain come later)", () => {
    const packages = [...packagesOf(resolve(root, 'functions/slack.ts'))].filter(
      (p) => !p.startsWith('node:'),
    );
    // The ack signs its SSM read and its Invoke (ADR 0039); the credential chain is a dynamic import.
    assert.deepEqual(packages.sort(), ['@smithy/hash-node', '@smithy/signature-v4', 'pino']);
    assert.ok(packagesOf(resolve(root, 'src/compose/lambda/slack-app.ts')).has('@slack/bolt'));
  });
});
