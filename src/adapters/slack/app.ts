/**
 * The Slack app: one Bolt App with the slash command, the prompt buttons and the reject modal, on
 * one of three receivers: HTTP (`serve`, at /slack/events), Socket Mode (`serve` with an app token) or
 * AWS Lambda (functions/slack.ts). Listeners are thin; everything they decide is in src/app/control.
 * Work that reads the cluster runs after the ack through `defer`, so Slack always gets its answer
 * within 3 s. One app serves one cluster, or every cluster of `clusters:` (issue 22): each click and
 * command is routed to its cluster (routes.ts) and decided by that cluster's rules.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import {
  App,
  AwsLambdaReceiver,
  HTTPReceiver,
  type AppOptions,
  type BufferedIncomingMessage,
} from '@slack/bolt';
import type { CommandDeps } from '../../app/control/commands.js';
import { KubemaintError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { boltLogger } from './bolt-logger.js';
import { registerCampaignActions } from './campaign-actions.js';
import { registerCommand } from './command-listener.js';
import { createPeopleDirectory } from './people.js';
import { registerRejectFlow } from './reject-flow.js';
import { RELAYED_BY_HEADER, type RawSlackRequest } from './relay.js';
import { registerRequestActions } from './request-actions.js';
import {
  keyedSerial,
  limited,
  type Defer,
  type SlackRoutes,
  type SlackRuntime,
  type SlackSettings,
} from './runtime.js';
import { RAW_REQUEST, standbyGate, type SlackStandby } from './standby-gate.js';

type BoltApp = App;
export type LambdaHandler = ReturnType<AwsLambdaReceiver['toHandler']>;

export type SlackReceiver =
  /** `host` defaults to 127.0.0.1; `serve` decides it (config/listen.ts). */
  | { kind: 'http'; port: number; host?: string }
  | { kind: 'socket'; appToken: string }
  | { kind: 'lambda' };

/** One cluster the app serves: its control plane's deps and its Slack side. */
export interface SlackCluster {
  deps: CommandDeps;
  settings: SlackSettings;
  /** The scan use case behind `/maint scan`. */
  scan?: () => Promise<string>;
}

/**
 * One cluster (`deps`, `settings`), or the clusters of `clusters:` (each button then carries its
 * cluster, and commands may name one).
 */
export type SlackServed = SlackCluster | { clusters: readonly SlackCluster[] };

export type SlackAppOptions = SlackAppCommon & SlackServed & { receiver: SlackReceiver };

export interface SlackAppCommon {
  signingSecret: string;
  botToken: string;
  /** Known bot ids skip Bolt's `auth.test` (one call fewer per Lambda cold start). */
  botId?: string;
  botUserId?: string;
  /** Web API base; default `SLACK_API_URL`, else slack.com. */
  slackApiUrl?: string;
  log: Logger;
  /**
   * How slow work continues after the ack (the Lambda hands it to an async invocation).
   * @default run it in this process, at most `maxConcurrentWork` at once, tracked by `idle()`
   */
  defer?: Defer;
  /** Deferred works running at once (the default `defer` only). @default 4 */
  maxConcurrentWork?: number;
  /**
   * serve's leadership (ADR 0054): a request for a cluster another replica acts for is relayed to
   * it, or answered "try again" (standby-gate.ts). Without it, this app acts for every cluster.
   */
  standby?: SlackStandby;
}

export interface SlackApp {
  app: BoltApp;
  /** Listen (HTTP: resolves with the bound port) or connect (Socket Mode). */
  start(): Promise<{ port?: number }>;
  stop(): Promise<void>;
  /** Resolves once the work deferred so far (and any it started) has finished. */
  idle(): Promise<void>;
  /** Set for the `lambda` receiver. */
  handler?: LambdaHandler;
}

export function createSlackApp(options: SlackAppOptions): SlackApp {
  const { log, receiver } = options;
  const pending = new Set<Promise<void>>();
  const run = (work: () => Promise<void>): Promise<void> =>
    work().catch((error: unknown) => log.error({ err: error }, 'deferred Slack work failed'));
  const track = (start: (inner: () => Promise<void>) => void, work: () => Promise<void>) => {
    const done = new Promise<void>((resolve) => start(() => run(work).finally(resolve)));
    pending.add(done);
    void done.finally(() => pending.delete(done));
    return done;
  };
  const now = (inner: () => Promise<void>) => void inner();
  const inline = (work: () => Promise<void>) => track(now, work);
  // Work handed to the caller's `defer` may run in another invocation (Lambda): it is not tracked
  // here, or `pending` would hold promises that never settle in this process.
  const handOff = options.defer;
  const limit = limited(options.maxConcurrentWork ?? 4);
  const defer: Defer = handOff
    ? (work) => handOff(() => run(work))
    : (work) => void track(limit, work);
  const logger = boltLogger(log);
  const slackApiUrl = options.slackApiUrl ?? process.env['SLACK_API_URL'];
  const base: AppOptions = {
    token: options.botToken,
    logger,
    ...(options.botId && options.botUserId
      ? { botId: options.botId, botUserId: options.botUserId }
      : { tokenVerificationEnabled: false }),
    clientOptions: {
      ...(slackApiUrl ? { slackApiUrl } : {}),
      // A click is answered within seconds or not at all: a short retry, never Slack's 30-minute default.
      retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1000 },
    },
  };
  let http: HTTPReceiver | undefined;
  let lambda: AwsLambdaReceiver | undefined;
  let app: BoltApp;
  switch (receiver.kind) {
    case 'http':
      http = new HTTPReceiver({
        signingSecret: options.signingSecret,
        endpoints: '/slack/events',
        logger,
        processBeforeResponse: false,
        // The request as it arrived, for a standby to relay byte for byte (standby-gate.ts).
        customPropertiesExtractor: (req) => ({ [RAW_REQUEST]: rawRequestOf(req) }),
      });
      app = new App({ ...base, receiver: http });
      break;
    case 'socket':
      app = new App({ ...base, socketMode: true, appToken: receiver.appToken });
      break;
    case 'lambda':
      lambda = new AwsLambdaReceiver({ signingSecret: options.signingSecret, logger });
      app = new App({ ...base, receiver: lambda });
      break;
  }
  const several = 'clusters' in options;
  const runtimeOf = (cluster: SlackCluster): SlackRuntime => {
    const own = several ? log.child({ cluster: cluster.settings.cluster }) : log;
    return {
      deps: cluster.deps,
      settings: cluster.settings,
      several,
      people: createPeopleDirectory({
        api: app.client,
        groups: cluster.deps.settings.approval.groups,
        onError: (group, error) => own.warn({ err: error, group }, 'user group lookup failed'),
      }),
      ...(cluster.scan ? { scan: cluster.scan } : {}),
      defer,
      inline,
      log: own,
      serial: keyedSerial(),
    };
  };
  const all = ('clusters' in options ? options.clusters : [options]).map(runtimeOf);
  const routes: SlackRoutes = {
    all,
    several,
    names: all.map((rt) => rt.settings.cluster),
    command: all[0]!.settings.command,
    named: (cluster) => all.find((rt) => rt.settings.cluster === cluster),
    defer,
    inline,
    log,
  };
  if (options.standby) app.use(standbyGate(routes, options.standby, options.signingSecret));
  registerCommand(app, routes);
  registerRequestActions(app, routes);
  registerCampaignActions(app, routes);
  registerRejectFlow(app, routes);
  app.error((error) => {
    log.error({ err: error }, 'Slack listener failed');
    return Promise.resolve();
  });

  const idle = async (): Promise<void> => {
    while (pending.size > 0) await Promise.all([...pending]);
  };
  const lambdaHandler = lambda?.toHandler();
  return {
    app,
    async start() {
      if (receiver.kind === 'http') {
        const host = receiver.host ?? '127.0.0.1';
        const server = (await app
          .start({ port: receiver.port, host })
          .catch((error: NodeJS.ErrnoException) => {
            throw new KubemaintError(
              'config_invalid',
              `the Slack receiver cannot listen on ${host}:${receiver.port}: ${error.code ?? error.message}`,
              {
                hint: 'set serve.slack.host and serve.slack.port (or --slack-host, --slack-port)',
                cause: error,
              },
            );
          })) as Server;
        return { port: (server.address() as AddressInfo).port };
      }
      if (receiver.kind === 'socket') await app.start();
      return {};
    },
    async stop() {
      if (receiver.kind !== 'lambda') await app.stop();
      await idle();
    },
    idle,
    ...(lambdaHandler
      ? {
          // Lambda freezes once the handler returns: work deferred by default finishes first.
          handler: (async (event, context) => {
            const response = await lambdaHandler(event, context);
            if (!options.defer) await idle();
            return response;
          }) as LambdaHandler,
        }
      : {}),
  };
}

function rawRequestOf(req: BufferedIncomingMessage): RawSlackRequest {
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  return {
    body: req.rawBody,
    signature: header('x-slack-signature'),
    timestamp: header('x-slack-request-timestamp'),
    contentType: header('content-type'),
    relayedBy: header(RELAYED_BY_HEADER),
  };
}

/** The Lambda entry's handler (functions/slack.ts): the same app on the AwsLambdaReceiver. */
export function createLambdaHandler(options: SlackAppCommon & SlackServed): LambdaHandler {
  const { handler } = createSlackApp({ ...options, receiver: { kind: 'lambda' } });
  return handler!;
}
