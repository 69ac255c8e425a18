/**
 * Slack as `serve` and the Lambda functions plug it in: the notifier that posts prompts and threads
 * (when a bot token and a channel are configured) and the settings of the Bolt app. One place, so the
 * long-running process and the functions cannot drift apart.
 */
import type { CommandDeps } from '../app/control/commands.js';
import type { Notifier } from '../app/control/ports.js';
import { nextWindowText, previewRequest } from '../app/control/preview.js';
import { createSlackNotifier, type SlackNotifier } from '../adapters/slack/notifier.js';
import type { SlackSettings } from '../adapters/slack/runtime.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';

/**
 * A notifier that joins once the deps exist (the Slack notifier reads the cluster through them), so
 * it can be handed to openControl before openControl has built them.
 */
export function lateSlackNotifier(): {
  notifier: Notifier;
  attach(slack: SlackNotifier): void;
  current(): SlackNotifier | undefined;
} {
  let slack: SlackNotifier | undefined;
  return {
    notifier: { notify: async (event, request) => slack?.notify(event, request) },
    attach: (s) => void (slack = s),
    current: () => slack,
  };
}

/** The Slack notifier when a bot token and a channel are configured, else undefined. */
export function slackNotifierFor(
  config: Config,
  deps: CommandDeps,
  options: {
    log: Logger;
    slackApiUrl?: string | undefined;
    /** The config lists clusters: prompts and replies carry this cluster's name (ClusterSet.several). */
    several?: boolean;
  },
): SlackNotifier | undefined {
  const token = config.secrets.botToken?.reveal();
  const channel = config.slack.channel;
  if (!token || !channel) return undefined;
  return createSlackNotifier({
    channel,
    web: { token, ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}) },
    cluster: deps.cluster,
    clock: deps.clock,
    log: options.log.child({ component: 'slack' }),
    clusterName: deps.settings.cluster,
    ...(options.several ? { several: true } : {}),
    timeZone: deps.settings.timeZone,
    preview: (node, request) => previewRequest(deps, node, request),
    nextWindow: () => nextWindowText(deps.settings, deps.clock.now()),
    approvers: config.approval.approvers.users,
  });
}

export function slackSettingsFor(config: Config, cluster: string): SlackSettings {
  return {
    command: config.slack.command,
    allowedChannels: config.slack.allowedChannels,
    cluster,
  };
}
