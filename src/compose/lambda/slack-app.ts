/**
 * The Slack function's cold path, loaded by slack.ts only for a request that passed the signature
 * gate: the config and secrets from SSM, the control plane (EKS), and Bolt on its AwsLambdaReceiver.
 * Everything heavy the function needs is imported from here, never from slack.ts itself.
 */
import { createLambdaHandler } from '../../adapters/slack/app.js';
import type { Env } from '../../adapters/aws/ssm-environment.js';
import { KubemaintError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { loadLambdaConfig } from './lambda-config.js';
import { openLambdaControl } from './lambda-control.js';
import type { AwsHandler, Defer } from './slack-handler.js';

export interface SlackApp {
  handler: AwsHandler;
  /** Wait for the Slack replies the listeners queued, at most `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
}

export async function openSlackApp(env: Env, log: Logger, defer: Defer): Promise<SlackApp> {
  const { config, env: resolved } = await loadLambdaConfig(env);
  const botToken = config.secrets.botToken?.reveal();
  const signingSecret = config.secrets.signingSecret?.reveal();
  if (!botToken || !signingSecret) {
    throw new KubemaintError('config_invalid', 'the slack function has no Slack credentials', {
      hint: 'store SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET in the SSM parameters serverless.yml names',
    });
  }
  const control = await openLambdaControl(config, resolved, log);
  const handler = createLambdaHandler({
    deps: control.deps,
    settings: {
      command: config.slack.command,
      allowedChannels: config.slack.allowedChannels,
      cluster: control.deps.clusterName,
    },
    botToken,
    signingSecret,
    ...(resolved.SLACK_BOT_ID ? { botId: resolved.SLACK_BOT_ID } : {}),
    ...(resolved.SLACK_BOT_USER_ID ? { botUserId: resolved.SLACK_BOT_USER_ID } : {}),
    ...(resolved.SLACK_API_URL ? { slackApiUrl: resolved.SLACK_API_URL } : {}),
    log,
    defer,
  });
  return { handler, flush: (timeoutMs) => control.flush(timeoutMs) };
}
