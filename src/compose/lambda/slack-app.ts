/**
 * The Slack function's cold path, loaded by slack.ts only for a request that passed the signature
 * gate: the config and secrets from SSM, the control plane (EKS) of the one cluster or of each of
 * `clusters:`, and Bolt on its AwsLambdaReceiver. Everything heavy the function needs is imported
 * from here, never from slack.ts itself.
 */
import { createLambdaHandler, type SlackServed } from '../../adapters/slack/app.js';
import type { Env } from '../../adapters/aws/ssm-environment.js';
import type { Config } from '../../config/schema.js';
import { KubemaintError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { slackSettingsFor } from '../slack.js';
import { openLambdaClusters } from './lambda-clusters.js';
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
  const { served, flush } = await openServed(config, resolved, log);
  const handler = createLambdaHandler({
    ...served,
    botToken,
    signingSecret,
    ...(resolved.SLACK_BOT_ID ? { botId: resolved.SLACK_BOT_ID } : {}),
    ...(resolved.SLACK_BOT_USER_ID ? { botUserId: resolved.SLACK_BOT_USER_ID } : {}),
    ...(resolved.SLACK_API_URL ? { slackApiUrl: resolved.SLACK_API_URL } : {}),
    log,
    defer,
  });
  return { handler, flush };
}

/** The one cluster of `cluster:`, or every cluster of `clusters:`, as the app serves them. */
async function openServed(
  config: Config,
  env: Env,
  log: Logger,
): Promise<{ served: SlackServed; flush: (timeoutMs: number) => Promise<void> }> {
  if (config.clusters) {
    const opened = await openLambdaClusters(config, env, log);
    const clusters = opened.runtimes.map((r) => ({
      deps: r.deps,
      settings: slackSettingsFor(r.config, r.name),
    }));
    return { served: { clusters }, flush: async (timeoutMs) => opened.flush?.(timeoutMs) };
  }
  const control = await openLambdaControl(config, env, log);
  return {
    served: {
      deps: control.deps,
      settings: slackSettingsFor(config, control.deps.settings.cluster),
    },
    flush: (timeoutMs) => control.flush(timeoutMs),
  };
}
