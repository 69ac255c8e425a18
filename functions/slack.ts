/**
 * Lambda entry of the Slack app (serverless.yml `slack`, behind `POST /slack/events`). A request
 * Slack did not sign is answered 401 at the door (slack-gate.ts), before the cold path. A signed
 * slash command or click is answered at once too (ack first, ADR 0018): an asynchronous invocation of
 * this same function is queued with the request, and that invocation reads the config and secrets
 * from SSM, opens the control plane, loads Bolt (slack-app.ts, imported then, in a chunk of its own)
 * and runs the listener. Only a modal submission, whose answer carries its validation, loads the app
 * in the invocation that answers it. This file imports nothing heavy: it is the whole cold start of
 * an acknowledgement.
 */
import { credentialsFrom, regionFromEnv } from '../src/adapters/aws/credentials.js';
import { invokeAsync } from '../src/adapters/aws/lambda-invoke.js';
import type { Env } from '../src/adapters/aws/ssm-environment.js';
import { createLogger, type Logger } from '../src/log.js';
import { signingSecretFrom } from '../src/compose/lambda/signing-secret.js';
import {
  acksFirst,
  answerThroughResponseUrl,
  slackRequestKind,
} from '../src/compose/lambda/slack-ack-first.js';
import type { openSlackApp, SlackApp } from '../src/compose/lambda/slack-app.js';
import { slackSignatureGate } from '../src/compose/lambda/slack-gate.js';
import { createSlackHandler } from '../src/compose/lambda/slack-handler.js';

export interface SlackEntryOptions {
  log?: Logger;
  /** How the cold path is loaded; tests count the loads. @default import('../src/compose/lambda/slack-app.js') */
  loadApp?: () => Promise<{ openSlackApp: typeof openSlackApp }>;
  now?: () => Date;
}

/** One container's handler: each call is a cold start, with its own cached secret and app. */
export function createSlackEntry(env: Env, options: SlackEntryOptions = {}) {
  const log =
    options.log ??
    createLogger({
      service: 'kubemaint-slack',
      level: env['KUBEMAINT_LOG_LEVEL'] ?? env['LOG_LEVEL'] ?? 'info',
    });
  const loadApp = options.loadApp ?? (() => import('../src/compose/lambda/slack-app.js'));
  const signingSecret = signingSecretFrom(env);
  let app: SlackApp | undefined;
  return createSlackHandler({
    log,
    gate: slackSignatureGate({ signingSecret, log, ...(options.now ? { now: options.now } : {}) }),
    ackFirst: (event) => acksFirst(slackRequestKind(event)),
    answerLate: (response, event) => answerThroughResponseUrl(response, event),
    createHandler: async (defer) => {
      const { openSlackApp } = await loadApp();
      // The gate has read the signing secret already: the cold path does not read it again.
      app = await openSlackApp({ ...env, SLACK_SIGNING_SECRET: await signingSecret() }, log, defer);
      return app.handler;
    },
    handOff: async (event) => {
      const { requestId } = await invokeAsync(env['AWS_LAMBDA_FUNCTION_NAME'] ?? '', event, {
        region: regionFromEnv(env),
        credentials: credentialsFrom(env),
        now: () => new Date(),
        ...(env['AWS_ENDPOINT_URL_LAMBDA'] ? { endpoint: env['AWS_ENDPOINT_URL_LAMBDA'] } : {}),
      });
      log.info({ requestId }, 'deferred work handed off');
    },
    settle: async () => app?.flush(5_000),
  });
}

export const handler = createSlackEntry(process.env);
