/**
 * The Bolt app of `serve`, for one cluster or every cluster of `clusters:` (one app, one slash
 * command, one receiver; issue 22), started when Slack credentials are in the environment: Socket
 * Mode with SLACK_APP_TOKEN (no public endpoint needed), else the HTTP receiver at /slack/events on
 * `listen` (config/listen.ts).
 */
import { findNeeds, skewLines } from '../app/control/tick.js';
import type { TickDeps } from '../app/control/tick.js';
import { createSlackApp, type SlackApp, type SlackServed } from '../adapters/slack/app.js';
import type { SlackStandby } from '../adapters/slack/standby-gate.js';
import { ALL_INTERFACES, type Listen } from '../config/listen.js';
import { slackUrlOf } from '../core/leader-address.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { scanLines } from '../../templates/scan.js';

export async function startSlackApp(
  config: Config,
  served: SlackServed,
  log: Logger,
  listen: Listen,
  standby?: SlackStandby,
): Promise<{ app?: SlackApp; description?: string; url?: string }> {
  const botToken = config.secrets.botToken?.reveal();
  const signingSecret = config.secrets.signingSecret?.reveal();
  const appToken = config.secrets.appToken?.reveal();
  if (!botToken) return {};
  if (!appToken && !signingSecret) {
    // Half a Slack setup is a mistake worth saying out loud, not a silent "no Slack".
    log.warn(
      'SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (HTTP) nor SLACK_APP_TOKEN (Socket ' +
        'Mode) is: slash commands and buttons are off; prompts are still posted',
    );
    return {};
  }
  const app = createSlackApp({
    ...served,
    botToken,
    // Socket Mode needs no signing secret: Slack's events arrive over the app's own connection.
    signingSecret: signingSecret ?? '',
    ...(process.env['SLACK_API_URL'] ? { slackApiUrl: process.env['SLACK_API_URL'] } : {}),
    receiver: appToken ? { kind: 'socket', appToken } : { kind: 'http', ...listen },
    log: log.child({ component: 'slack' }),
    ...(standby ? { standby } : {}),
  });
  const started = await app.start();
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  // Where another replica relays to (ADR 0054): the pod IP the Downward API gives serve.
  const url = appToken
    ? undefined
    : slackUrlOf({
        podIp: process.env['POD_IP'],
        host: listen.host,
        port: started.port ?? listen.port,
      });
  return {
    app,
    ...(url ? { url } : {}),
    description: appToken
      ? 'socket-mode'
      : `http://${host}:${started.port ?? listen.port}/slack/events${everywhere(listen.host)}`,
  };
}

/** `/maint scan` in one cluster: what the next tick would propose, as lines. */
export const scanOf = (deps: TickDeps) => async (): Promise<string> => {
  const findings = await findNeeds(deps, true);
  return scanLines({
    ...findings,
    nodes: findings.nodes.length,
    skew: skewLines(findings),
  }).join('\n');
};

/** Said on the ready line when a port is open to other machines: nobody should be surprised. */
export const everywhere = (host: string): string =>
  host === ALL_INTERFACES || host === '::' ? ' (all interfaces)' : '';
