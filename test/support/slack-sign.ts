/**
 * Signs a request body the way Slack does (v0 HMAC-SHA256 over `v0:<ts>:<body>`), so tests can send
 * real slash commands and button clicks to the Bolt app over HTTP.
 */
import { createHmac } from 'node:crypto';

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
