/**
 * The control plane as both Lambda functions open it: `openControl` from the composition root, plus
 * the Slack notifier when a bot token and a channel are configured (prompts from the tick; thread
 * replies and in-place updates after a click). Its `flush` waits for Slack and the notification URLs
 * alike, because a Lambda is frozen once it returns and anything still queued would be late.
 */
import type { CommandDeps } from '../../app/control/commands.js';
import type { TickDeps } from '../../app/control/tick.js';
import type { Env } from '../../adapters/aws/ssm-environment.js';
import { emfNotifier } from '../../adapters/metrics/emf-notifier.js';
import { openControl } from '../../compose.js';
import { lateSlackNotifier, slackNotifierFor } from '../slack.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';

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
  const slack = lateSlackNotifier();
  // Durations and outcomes as EMF lines on stdout, where CloudWatch Logs reads them (ADR 0016).
  const metrics = emfNotifier({
    write: (line) => void process.stdout.write(`${line}\n`),
    now: () => new Date(),
  });
  const runtime = await openControl(config, { log, notifiers: [slack.notifier, metrics] });
  const notifier = slackNotifierFor(config, runtime.deps, { log, slackApiUrl: env.SLACK_API_URL });
  if (notifier) slack.attach(notifier);
  return {
    deps: runtime.deps,
    config: runtime.config,
    flush: async (timeoutMs) => {
      await Promise.all([runtime.flush(timeoutMs), notifier?.flush(timeoutMs)]);
    },
    close: async () => {
      await notifier?.flush(2_000);
      await runtime.close();
    },
  };
}
