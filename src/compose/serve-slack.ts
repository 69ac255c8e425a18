/**
 * serve's Slack receiver and leadership (ADR 0046, 0054). Socket Mode is one connection Slack sends
 * every event to: with leader election on, it is held only while this process leads a cluster
 * (started on leading, stopped when it leads none). An HTTP receiver listens on every replica: the
 * Service hands each request to one pod, and one that does not act for the request's cluster
 * relays it to the one that does (adapters/slack/standby-gate.ts).
 */
import type { SlackServed } from '../adapters/slack/app.js';
import type { SlackStandby } from '../adapters/slack/standby-gate.js';
import type { Listen } from '../config/listen.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { startSlackApp } from './slack-serve.js';

type Started = Awaited<ReturnType<typeof startSlackApp>>;

export interface ServeSlack {
  /** For the ready line. */
  readonly description: string | undefined;
  /** The HTTP receiver as another replica reaches it (written on the Lease this process holds). */
  readonly url: string | undefined;
  /** A cluster's leadership turned: Socket Mode connects while any cluster is led. */
  leading(cluster: string, leading: boolean): void;
  stop(): Promise<void>;
}

export async function startServeSlack(
  config: Config,
  served: SlackServed,
  log: Logger,
  listen: Listen,
  standby: SlackStandby,
): Promise<ServeSlack> {
  const start = () => startSlackApp(config, served, log, listen, standby);
  const followsLead = config.serve.leaderElection.enabled && config.secrets.appToken !== undefined;
  if (!followsLead) {
    const slack = await start();
    return {
      description: slack.description,
      url: slack.url,
      leading: () => undefined,
      stop: async () => slack.app?.stop(),
    };
  }
  const led = new Set<string>();
  let slack: Started = {};
  let turn = Promise.resolve();
  const follow = () => {
    turn = turn.then(async () => {
      if (led.size > 0 && !slack.app)
        slack = await start().catch((error: unknown) => {
          // The message only: a Slack client's error object can carry the request and its token.
          log.error(
            { why: error instanceof Error ? error.message : String(error) },
            'Slack Socket Mode did not start; the next leadership tries again',
          );
          return {};
        });
      if (led.size === 0 && slack.app) {
        await slack.app.stop().catch(() => undefined);
        slack = {};
      }
    });
  };
  return {
    description: 'socket-mode (while leading)',
    url: undefined,
    leading(cluster, leading) {
      if (leading) led.add(cluster);
      else led.delete(cluster);
      follow();
    },
    async stop() {
      led.clear();
      follow();
      await turn;
    },
  };
}
