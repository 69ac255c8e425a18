/**
 * functions/tick.ts as Lambda runs it: the environment serverless.yml sets (parameter names only),
 * the config and Slack secrets read from a local SSM stand-in, the control plane opened through the
 * composition root against the sim, and the prompts posted to a Slack stand-in before it returns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TickSummary } from '../../../src/compose/lambda/tick-handler.js';
import { startSlackWebApi, type SlackWebApi } from '../../support/slack-web-api.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import { startAwsStub, type AwsStub } from '../../support/aws-stub.js';

describe('functions/tick.ts entry', () => {
  let sim: TestSim;
  let aws: AwsStub;
  let slack: SlackWebApi;
  let handler: (event: unknown) => Promise<TickSummary>;

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
      '/kubemaint/ci/slack-signing-secret': 'fe0c2b1d5a7e4f3b9c8d6e5f4a3b2c1d',
    });
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'session',
      AWS_ENDPOINT_URL_SSM: aws.url,
      AWS_LAMBDA_FUNCTION_NAME: 'kubemaint-ci-tick',
      KUBEMAINT_CONFIG_YAML_SSM_PARAMETER: '/kubemaint/ci/config',
      SLACK_BOT_TOKEN_SSM_PARAMETER: '/kubemaint/ci/slack-bot-token',
      SLACK_SIGNING_SECRET_SSM_PARAMETER: '/kubemaint/ci/slack-signing-secret',
      SLACK_API_URL: slack.apiUrl,
      LOG_LEVEL: 'silent',
    });
    ({ handler } = await import('../../../functions/tick.js'));
  });
  after(async () => {
    await sim.close();
    await aws.close();
    await slack.close();
  });

  it('reads SSM once, proposes the marked nodes and has posted the prompt when it returns', async () => {
    const summary = await handler({ 'detail-type': 'Scheduled Event', source: 'aws.events' });
    assert.deepEqual(summary.report.proposed.sort(), ['node-2: reboot', 'node-5: reboot']);
    const posts = slack.calls.filter((c) => c.method === 'chat.postMessage');
    assert.ok(posts.length >= 1, 'a prompt was posted before the invocation returned');
    assert.ok(posts.every((c) => c.args.channel === 'C0MAINT'));
    assert.match(JSON.stringify(posts[0]!.args.blocks), /node-2/);
    assert.deepEqual(
      slack.calls.flatMap((c) => c.violations),
      [],
      'Slack would accept every message',
    );
    const ssmReads = aws.requests.length;
    assert.equal(ssmReads, 3, 'config, bot token, signing secret');

    const scan = await handler({ kind: 'skew-scan' });
    assert.equal(scan.kind, 'skew-scan');
    assert.equal(scan.counts.proposed, 1);
    assert.equal(aws.requests.length, ssmReads, 'a warm invocation reads nothing from SSM');
  });
});
