/**
 * The tick Lambda against the embedded sim: EventBridge events in, a tick's summary out, the control
 * plane opened once across warm invocations, notifications flushed before each return; the cold-start
 * config read from a local SSM stand-in, with every way it can be wrong named clearly.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createTickHandler, type TickControl } from '../../../src/compose/lambda/tick-handler.js';
import { loadLambdaConfig } from '../../../src/compose/lambda/lambda-config.js';
import { KubemaintError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { testControlDeps } from '../../support/control.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import { startAwsStub, type AwsStub } from '../../support/aws-stub.js';

const scheduledEvent = {
  version: '0',
  id: '7bf73129-1428-4cd3-a780-95db273d1602',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '123456789012',
  time: '2026-11-22T03:00:00Z',
  region: 'us-east-1',
  resources: ['arn:aws:events:us-east-1:123456789012:rule/kubemaint-ci-TickEventsRuleSchedule1'],
  detail: {},
};

describe('tick handler on the demo sim', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(() => sim.close());

  it('runs a tick per scheduled event, a skew scan on its input, and opens the control plane once', async () => {
    let opens = 0;
    let flushes = 0;
    const handler = createTickHandler({
      log: silentLogger(),
      open: async (): Promise<TickControl> => {
        opens += 1;
        return { deps: testControlDeps(sim), flush: async () => void (flushes += 1) };
      },
    });
    const first = await handler(scheduledEvent);
    assert.equal(first.kind, 'tick');
    assert.deepEqual(first.report.proposed.sort(), ['node-2: reboot', 'node-5: reboot']);
    assert.equal(first.counts.proposed, 2);

    const scan = await handler({ kind: 'skew-scan' });
    assert.equal(scan.kind, 'skew-scan');
    assert.equal(scan.counts.proposed, 1, JSON.stringify(scan.report));
    assert.match(scan.report.proposed[0] ?? '', /: upgrade v?\d+\.\d+/);

    const again = await handler(scheduledEvent);
    assert.equal(again.counts.proposed, 0, 'nothing is proposed twice');
    assert.equal(again.counts.reconciled, 3);
    assert.equal(opens, 1, 'warm invocations reuse the opened control plane');
    assert.equal(flushes, 3, 'notifications are flushed before every return');
  });

  it('a failed open is retried on the next invocation, and a bad event never opens anything', async () => {
    let opens = 0;
    const lines: { msg: string; hint?: string }[] = [];
    const log = pino(
      { level: 'error' },
      { write: (line: string) => void lines.push(JSON.parse(line)) },
    );
    const handler = createTickHandler({
      log,
      open: async (): Promise<TickControl> => {
        opens += 1;
        if (opens === 1) throw new KubemaintError('unexpected', 'SSM is down', { hint: 'wait' });
        return { deps: testControlDeps(sim) };
      },
    });
    await assert.rejects(handler({ kind: 'bogus' }), /unknown tick event kind "bogus"/);
    assert.equal(opens, 0);
    await assert.rejects(handler(scheduledEvent), /SSM is down/);
    assert.deepEqual(
      lines.map((l) => [l.msg, l.hint]),
      [
        ['tick failed', "the schedule's input.kind is one of: tick, skew-scan (serverless.yml)"],
        ['tick failed', 'wait'],
      ],
      'each failure is logged with its hint',
    );
    const summary = await handler(scheduledEvent);
    assert.equal(summary.kind, 'tick');
    assert.equal(opens, 2);
  });
});

describe('loadLambdaConfig (cold start)', () => {
  let aws: AwsStub;
  const caData = Buffer.from(
    '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  ).toString('base64');
  const configYaml = [
    'cluster:',
    '  type: eks',
    '  eks:',
    '    name: prod',
    '    region: eu-west-1',
    '    endpoint: https://ABC.gr7.eu-west-1.eks.amazonaws.com',
    `    caData: ${caData}`,
    '',
  ].join('\n');
  before(async () => {
    aws = await startAwsStub({
      '/kubemaint/ci/config': 'namespace: kubemaint\nlock:\n  concurrency: 2\n',
      '/kubemaint/ci/slack-bot-token': 'xoxb-1-2-abc',
      '/kubemaint/ci/slack-signing-secret': 'fe0c2b1d5a7e4f3b9c8d6e5f4a3b2c1d',
      '/kubemaint/ci/sim-config': 'cluster:\n  type: sim\n',
    });
  });
  after(() => aws.close());

  const lambdaEnv = (extra: Record<string, string>) => ({
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_SESSION_TOKEN: 'token',
    AWS_ENDPOINT_URL_SSM: aws.url,
    ...extra,
  });

  it('reads the config and the Slack secrets from the parameters serverless.yml names', async () => {
    const before = aws.requests.length;
    const { config, env } = await loadLambdaConfig(
      lambdaEnv({
        KUBEMAINT_CONFIG_YAML_SSM_PARAMETER: '/kubemaint/ci/config',
        SLACK_BOT_TOKEN_SSM_PARAMETER: '/kubemaint/ci/slack-bot-token',
        SLACK_SIGNING_SECRET_SSM_PARAMETER: '/kubemaint/ci/slack-signing-secret',
        // A variable already set wins over its parameter (local runs), and is not read.
        KUBEMAINT_CONFIG_YAML: `${configYaml}slot:\n  concurrency: 3\nslack:\n  channel: C0123ABCD\n  allowedChannels: [C0123ABCD]\n`,
      }),
    );
    assert.equal(config.cluster.type, 'eks');
    assert.equal(config.slot.concurrency, 3);
    assert.equal(env.SLACK_BOT_TOKEN, 'xoxb-1-2-abc');
    assert.equal(env.SLACK_SIGNING_SECRET, 'fe0c2b1d5a7e4f3b9c8d6e5f4a3b2c1d');
    const sent = aws.requests.slice(before);
    assert.equal(sent.length, 2, 'one GetParameter per parameter still needed');
    for (const req of sent) {
      assert.equal(req.headers['x-amz-target'], 'AmazonSSM.GetParameter');
      assert.match(req.headers.authorization ?? '', /\/eu-west-1\/ssm\/aws4_request, /);
      assert.equal((JSON.parse(req.body) as { WithDecryption: boolean }).WithDecryption, true);
    }
  });

  const failures = [
    {
      name: 'no config at all',
      env: () => ({ AWS_REGION: 'eu-west-1' }),
      message: /no config: KUBEMAINT_CONFIG_YAML is not set/,
      hint: /KUBEMAINT_CONFIG_YAML_SSM_PARAMETER/,
    },
    {
      name: 'a parameter that does not exist',
      env: () => lambdaEnv({ KUBEMAINT_CONFIG_YAML_SSM_PARAMETER: '/kubemaint/ci/missing' }),
      message: /SSM parameter \/kubemaint\/ci\/missing: ParameterNotFound/,
      hint: /put-parameter --name \/kubemaint\/ci\/missing/,
    },
    {
      name: 'no AWS credentials to read SSM with',
      env: () => ({
        AWS_REGION: 'eu-west-1',
        KUBEMAINT_CONFIG_YAML_SSM_PARAMETER: '/kubemaint/ci/config',
      }),
      // Past the environment the standard chain reads this process's own: kept off the machine's
      // files and instance metadata (isolated below), so nothing is asked beyond loopback.
      isolated: true,
      message: /^AWS credentials missing: /,
      hint: /standard AWS chain: AWS_ACCESS_KEY_ID\/AWS_SECRET_ACCESS_KEY, a profile/,
    },
    {
      name: 'the embedded sim as the cluster',
      env: () => lambdaEnv({ KUBEMAINT_CONFIG_YAML_SSM_PARAMETER: '/kubemaint/ci/sim-config' }),
      message: /cluster.type is sim/,
      hint: /cluster.type: eks/,
    },
    {
      name: 'a config with problems lists each, naming the variable',
      env: () => ({ KUBEMAINT_CONFIG_YAML: `${configYaml}slot:\n  concurrency: 0\nbogus: 1\n` }),
      message: /KUBEMAINT_CONFIG_YAML[\s\S]*slot.concurrency[\s\S]*bogus/,
      hint: /docs\/configuration.md/,
    },
  ];
  for (const failure of failures) {
    it(`${failure.name} → config_invalid`, async () => {
      const saved = { ...process.env };
      const home = mkdtempSync(join(tmpdir(), 'kubemaint-no-aws-'));
      if ('isolated' in failure) {
        for (const key of Object.keys(process.env))
          if (key.startsWith('AWS_')) delete process.env[key];
        Object.assign(process.env, { HOME: home, AWS_EC2_METADATA_DISABLED: 'true' });
      }
      try {
        await assert.rejects(loadLambdaConfig(failure.env()), (error) => {
          assert.ok(error instanceof KubemaintError, String(error));
          assert.equal(error.code, 'config_invalid');
          assert.match(error.message, failure.message);
          assert.match(error.hint ?? '', failure.hint);
          return true;
        });
      } finally {
        for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
        Object.assign(process.env, saved);
        rmSync(home, { recursive: true, force: true });
      }
    });
  }
});
