/**
 * The control plane as both Lambda functions open it: `openControl` from the composition root, plus
 * the Slack notifier when a bot token and a channel are configured (prompts from the tick; thread
 * replies and in-place updates after a click). Its `flush` waits for Slack and the notification URLs
 * alike, because a Lambda is frozen once it returns and anything still queued would be late.
 */
import type { CommandDeps } from '../src/app/control/commands.js';
import type { Notifier } from '../src/app/control/ports.js';
import { nextWindowText, previewRequest } from '../src/app/control/preview.js';
import type { TickDeps } from '../src/app/control/tick.js';
import { createSlackNotifier, type SlackNotifier } from '../src/adapters/slack/notifier.js';
import type { Env } from '../src/adapters/aws/ssm-environment.js';
import { openControl } from '../src/compose.js';
import type { Config } from '../src/config/schema.js';
import type { Logger } from '../src/log.js';

export interface LambdaControl {
  deps: TickDeps & CommandDeps;
  config: Config;
  flush(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function openLambdaControl(
  config: Config,
  env: Env,
  log: Logger,
): Promise<LambdaControl> {
  const token = config.secrets.botToken?.reveal();
  const channel = config.slack.channel;
  // The Slack notifier reads the cluster through the deps openControl builds, so it joins late.
  let slack: SlackNotifier | undefined;
  const toSlack: Notifier = { notify: async (event, request) => slack?.notify(event, request) };
  const runtime = await openControl(config, {
    log,
    ...(token && channel ? { notifiers: [toSlack] } : {}),
  });
  const { deps } = runtime;
  if (token && channel) {
    slack = createSlackNotifier({
      channel,
      web: { token, ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}) },
      cluster: deps.cluster,
      clock: deps.clock,
      log: log.child({ component: 'slack' }),
      clusterName: deps.clusterName,
      timeZone: deps.settings.timeZone,
      preview: (node) => previewRequest(deps, node),
      nextWindow: () => nextWindowText(deps.settings, deps.clock.now()),
      approvers: config.approval.approvers.users,
    });
  }
  return {
    deps,
    config: runtime.config,
    flush: async (timeoutMs) => {
      await Promise.all([runtime.flush(timeoutMs), slack?.flush(timeoutMs)]);
    },
    close: async () => {
      await slack?.flush(2_000);
      await runtime.close();
    },
  };
}
