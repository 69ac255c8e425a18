/**
 * A test harness for the Bolt app: the real app on the HTTP receiver (port 0), the Web API stand-in,
 * a demo sim with the control plane's deps, and helpers that send correctly signed slash commands,
 * button clicks and modal submissions the way Slack does.
 */
import type { Notifier } from '../../src/app/control/ports.js';
import type { ControlSettings } from '../../src/app/control/settings.js';
import { createSlackApp, type SlackApp } from '../../src/adapters/slack/app.js';
import type { SlackStandby } from '../../src/adapters/slack/standby-gate.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import { silentLogger, type Logger } from '../../src/log.js';
import { testControlDeps, testControlSettings } from './control.js';
import { interactionBody, slackHeaders, slashCommandBody } from './slack-sign.js';
import { requestReader } from './requests.js';
import { startSlackWebApi, type SlackWebApi } from './slack-web-api.js';
import type { TestSim } from './sim.js';

export const SECRET = 'test-signing-secret';
export const CHANNEL = 'CMAINT';

export interface Harness {
  slack: SlackApp;
  api: SlackWebApi;
  deps: ReturnType<typeof testControlDeps>;
  url: string;
  post(body: string, headers?: Record<string, string>): Promise<{ status: number; text: string }>;
  command(text: string, user: string, channel?: string): Promise<{ status: number; text: string }>;
  click(
    actionId: string,
    value: string,
    user: string,
    message?: { ts: string; blocks: unknown[] },
    extraHeaders?: Record<string, string>,
  ): Promise<{ status: number; text: string }>;
  submitReject(
    privateMetadata: string,
    reason: string,
    user: string,
  ): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

export async function startHarness(
  sim: TestSim,
  overrides: Partial<ControlSettings> = {},
  /** `standby`: the app as a serve replica's, which may not act for the cluster (ADR 0054). */
  /** `notifier`: where the control plane's events go (default: recorded in `deps.events`). */
  options: { log?: Logger; standby?: SlackStandby; notifier?: Notifier } = {},
): Promise<Harness> {
  const api = await startSlackWebApi();
  const settings = testControlSettings({
    approval: {
      users: ['UALICE', 'UBOB'],
      groups: ['SAPPROVERS'],
      // UREQ asks for maintenance in the tests without being an approver (approval.proposers).
      proposers: { users: ['UREQ'], groups: [] },
      expiresAfterMs: 72 * 3_600_000,
    },
    ...overrides,
  });
  const deps = testControlDeps(sim, {
    settings,
    ...(options.notifier ? { notifier: options.notifier } : {}),
  });
  const slack = createSlackApp({
    deps,
    settings: { command: '/maint', allowedChannels: [CHANNEL], cluster: 'sim' },
    signingSecret: SECRET,
    botToken: 'xoxb-test',
    botId: 'BBOT',
    botUserId: 'UBOT',
    slackApiUrl: api.apiUrl,
    receiver: { kind: 'http', port: 0, host: '127.0.0.1' },
    log: options.log ?? silentLogger(),
    ...(options.standby ? { standby: options.standby } : {}),
  });
  const { port } = await slack.start();
  const url = `http://127.0.0.1:${port}/slack/events`;
  const post = async (body: string, headers = slackHeaders(SECRET, body)) => {
    const response = await fetch(url, { method: 'POST', headers, body });
    return { status: response.status, text: await response.text() };
  };
  return {
    slack,
    api,
    deps,
    url,
    post,
    command: (text, user, channel = CHANNEL) =>
      post(
        slashCommandBody({
          command: '/maint',
          text,
          userId: user,
          channelId: channel,
          responseUrl: api.responseUrl(),
        }),
      ),
    click: (actionId, value, user, message, extraHeaders = {}) => {
      const body = interactionBody({
        type: 'block_actions',
        team: { id: 'T0TEST', domain: 'test' },
        user: {
          id: user,
          username: user.toLowerCase(),
          name: user.toLowerCase(),
          team_id: 'T0TEST',
        },
        api_app_id: 'A0TEST',
        token: 'deprecated',
        trigger_id: '1337.42.trigger',
        response_url: api.responseUrl(),
        container: {
          type: 'message',
          message_ts: message?.ts ?? '1.0',
          channel_id: CHANNEL,
          is_ephemeral: false,
        },
        channel: { id: CHANNEL, name: 'maintenance' },
        ...(message
          ? { message: { type: 'message', ts: message.ts, text: '', blocks: message.blocks } }
          : {}),
        actions: [
          {
            type: 'button',
            action_id: actionId,
            block_id: 'actions',
            value,
            text: { type: 'plain_text', text: 'button' },
            action_ts: '1700000000.1',
          },
        ],
      });
      return post(body, { ...slackHeaders(SECRET, body), ...extraHeaders });
    },
    submitReject: (privateMetadata, reason, user) =>
      post(
        interactionBody({
          type: 'view_submission',
          team: { id: 'T0TEST', domain: 'test' },
          user: {
            id: user,
            username: user.toLowerCase(),
            name: user.toLowerCase(),
            team_id: 'T0TEST',
          },
          api_app_id: 'A0TEST',
          token: 'deprecated',
          trigger_id: '1337.43.trigger',
          view: {
            id: 'V1',
            team_id: 'T0TEST',
            type: 'modal',
            callback_id: 'kubemaint_reject_modal',
            private_metadata: privateMetadata,
            state: {
              values: { reason: { reason_input: { type: 'plain_text_input', value: reason } } },
            },
            hash: 'h',
            title: { type: 'plain_text', text: 'Reject maintenance' },
            blocks: [],
            close: null,
            submit: null,
            root_view_id: 'V1',
            previous_view_id: null,
            app_id: 'A0TEST',
            bot_id: 'BBOT',
            external_id: '',
            clear_on_close: false,
            notify_on_close: false,
          },
          response_urls: [],
        }),
      ),
    async close() {
      await slack.stop();
      await api.close();
    },
  };
}

/** The node's request (its MaintenanceRequest, as the control plane reads it). */
export async function requestOn(
  sim: TestSim,
  node: string,
): Promise<MaintenanceRequest | undefined> {
  return requestReader(sim.kubeconfigPath).ofNode(node);
}

/** Events kubemaint recorded on a node with `reason`. */
export async function eventsOn(sim: TestSim, node: string, reason: string): Promise<string[]> {
  const list = await sim.core.listEventForAllNamespaces();
  return list.items
    .filter((e) => e.involvedObject.name === node && e.reason === reason)
    .map((e) => e.message ?? '');
}
