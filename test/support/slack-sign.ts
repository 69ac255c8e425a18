/**
 * Signs a request body the way Slack does (v0 HMAC-SHA256 over `v0:<ts>:<body>`), so tests can send
 * real slash commands and button clicks to the Bolt app over HTTP.
 */
import { createHmac } from 'node:crypto';
import { SLACK_ACTION } from '../../templates/slack/ids.js';

export function slackHeaders(
  secret: string,
  body: string,
  timestampSeconds = Math.floor(Date.now() / 1000),
  contentType = 'application/x-www-form-urlencoded',
): Record<string, string> {
  const signature =
    'v0=' + createHmac('sha256', secret).update(`v0:${timestampSeconds}:${body}`).digest('hex');
  return {
    'X-Slack-Signature': signature,
    'X-Slack-Request-Timestamp': String(timestampSeconds),
    'Content-Type': contentType,
  };
}

/** Form body of a slash command as Slack sends it. */
export function slashCommandBody(fields: {
  command: string;
  text: string;
  userId: string;
  channelId: string;
  responseUrl: string;
  triggerId?: string;
  teamId?: string;
}): string {
  return new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: fields.teamId ?? 'T0TEST',
    team_domain: 'test',
    channel_id: fields.channelId,
    channel_name: 'maintenance',
    user_id: fields.userId,
    user_name: fields.userId.toLowerCase(),
    command: fields.command,
    text: fields.text,
    api_app_id: 'A0TEST',
    response_url: fields.responseUrl,
    trigger_id: fields.triggerId ?? '1337.42.abcdef',
  }).toString();
}

/** Form body of an interactive payload (`payload=<json>`). */
export function interactionBody(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/**
 * Form body of a click on a request prompt's Approve button (`block_actions`), as Slack posts it:
 * `ts` is the prompt message's, `blocks` its blocks when a test has them.
 */
export function approveClickBody(fields: {
  requestId: string;
  userId: string;
  channelId: string;
  responseUrl: string;
  ts: string;
  blocks?: unknown;
}): string {
  return clickBody({ ...fields, actionId: SLACK_ACTION.approve, value: fields.requestId });
}

/** Form body of a click on any button, its `value` as the button carries it. */
export function clickBody(fields: {
  actionId: string;
  value: string;
  userId: string;
  channelId: string;
  responseUrl: string;
  ts: string;
  blocks?: unknown;
}): string {
  const user = fields.userId.toLowerCase();
  return interactionBody({
    type: 'block_actions',
    team: { id: 'T0TEST', domain: 'test' },
    user: { id: fields.userId, username: user, name: user, team_id: 'T0TEST' },
    api_app_id: 'A0TEST',
    token: 'deprecated',
    trigger_id: `1337.${fields.ts}.trigger`,
    response_url: fields.responseUrl,
    container: {
      type: 'message',
      message_ts: fields.ts,
      channel_id: fields.channelId,
      is_ephemeral: false,
    },
    channel: { id: fields.channelId, name: 'maintenance' },
    message: {
      type: 'message',
      ts: fields.ts,
      text: '',
      ...(fields.blocks === undefined ? {} : { blocks: fields.blocks }),
    },
    actions: [
      {
        type: 'button',
        action_id: fields.actionId,
        block_id: 'actions',
        value: fields.value,
        text: { type: 'plain_text', text: 'button' },
        action_ts: fields.ts,
      },
    ],
  });
}
