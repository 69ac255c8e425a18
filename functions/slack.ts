/**
 * Lambda entry of the Slack app (serverless.yml `slack`, behind `POST /slack/events`): Bolt on its
 * AwsLambdaReceiver, built once per cold start from the config and secrets in SSM. Work a listener
 * defers is handed to an asynchronous invocation of this same function (slack-handler.ts), signed
 * with the function role's credentials; that invocation runs it, and both flush Slack before returning.
 */
import { createLambdaHandler } from '../src/adapters/slack/app.js';
import { credentialsFromEnv, regionFromEnv } from '../src/adapters/aws/credentials.js';
import { invokeAsync } from '../src/adapters/aws/lambda-invoke.js';
import { KubemaintError } from '../src/errors.js';
import { createLogger } from '../src/log.js';
import { loadLambdaConfig } from './lambda-config.js';
import { openLambdaControl, type LambdaControl } from './lambda-control.js';
import { createSlackHandler } from './slack-handler.js';

const log = createLogger({
  service: 'kubemaint-slack',
  level: process.env.KUBEMAINT_LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'info',
});
let control: LambdaControl | undefined;

export const handler = createSlackHandler({
  log,
  createHandler: async (defer) => {
    const { config, env } = await loadLambdaConfig(process.env);
    const botToken = config.secrets.botToken?.reveal();
    const signingSecret = config.secrets.signingSecret?.reveal();
    if (!botToken || !signingSecret) {
      throw new KubemaintError('config_invalid', 'the slack function has no Slack credentials', {
        hint: 'store SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET in the SSM parameters serverless.yml names',
      });
    }
    control = await openLambdaControl(config, env, log);
    return createLambdaHandler({
      deps: control.deps,
      settings: {
        command: config.slack.command,
        allowedChannels: config.slack.allowedChannels,
        cluster: control.deps.clusterName,
      },
      botToken,
      signingSecret,
      ...(env.SLACK_BOT_ID ? { botId: env.SLACK_BOT_ID } : {}),
      ...(env.SLACK_BOT_USER_ID ? { botUserId: env.SLACK_BOT_USER_ID } : {}),
      ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}),
      log,
      defer,
    });
  },
  handOff: async (event) => {
    const env = process.env;
    const { requestId } = await invokeAsync(env.AWS_LAMBDA_FUNCTION_NAME ?? '', event, {
      region: regionFromEnv(env),
      credentials: credentialsFromEnv(env),
      now: () => new Date(),
      ...(env.AWS_ENDPOINT_URL_LAMBDA ? { endpoint: env.AWS_ENDPOINT_URL_LAMBDA } : {}),
    });
    log.info({ requestId }, 'deferred work handed off');
  },
  settle: async () => control?.flush(5_000),
});
