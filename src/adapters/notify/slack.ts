/**
 * Slack, in shoutrrr's three URL forms: a bot token (`slack://xoxb:<token>@<channel>`) posts through
 * chat.postMessage; a webhook (`slack://hook:<a>-<b>-<c>@webhook`) and the legacy
 * `slack://[botname@]<a>/<b>/<c>` post to hooks.slack.com. Without `color` the message is plain
 * text; with it, shoutrrr's layout: the title as text and one attachment per line.
 */
import { snippet, type HttpRequest, type HttpResponse } from './http.js';
import { httpTarget, postJson } from './http-target.js';
import { NotifySendError, urlError, type NotifyMessage, type NotifyService } from './types.js';
import { optional, parseJson } from './shape.js';
import { decodePart, passwordOf, prop, userOf } from './url.js';

// shoutrrr's token pattern: an optional type (`xoxb-`, `hook:`), then three parts with one separator.
const TOKEN =
  /^(?:(xox.|hook)[-:]|:?)([A-Z0-9]{9,})([-/,])([A-Z0-9]{9,})([-/,])([A-Za-z0-9]{24,})$/;

export interface SlackConfig {
  mode: 'bot' | 'webhook';
  /** `xoxb-…` for bots, the `https://hooks.slack.com/services/…` URL for webhooks. */
  token: string;
  channel?: string;
  botName?: string;
  color?: string;
  icon?: string;
  title?: string;
  threadTs?: string;
}

export const slackService: NotifyService = {
  schemes: ['slack'],
  parse(url, masked, props) {
    const legacy = url.pathname.length > 1;
    const host = decodePart(url.hostname, masked, 'host');
    const tokenText = legacy
      ? `${host}${decodePart(url.pathname, masked, 'path')}`
      : `${userOf(url, masked)}:${passwordOf(url, masked)}`;
    const match = TOKEN.exec(tokenText);
    if (!match) {
      throw urlError(
        masked,
        'the token is not a Slack token',
        'use slack://xoxb:<bot token without xoxb->@<channel> or slack://hook:<A>-<B>-<C>@webhook',
      );
    }
    const [, type, a, sep1, b, sep2, c] = match;
    if (sep1 !== sep2)
      throw urlError(masked, 'the token mixes separators; use one of - / , throughout');
    const bot = type?.startsWith('xox') === true;
    const channel = prop(props, 'channel') ?? (legacy ? undefined : host);
    if (bot && (channel === undefined || channel === 'webhook')) {
      throw urlError(masked, 'a bot token needs a channel', 'slack://xoxb:<token>@<channel id>');
    }
    const config: SlackConfig = {
      mode: bot ? 'bot' : 'webhook',
      token: bot ? `${type}-${a}-${b}-${c}` : `https://hooks.slack.com/services/${a}/${b}/${c}`,
      ...optional({
        channel: channel === 'webhook' ? undefined : channel,
        botName: prop(props, 'botname', 'username') ?? (legacy ? userOf(url, masked) : undefined),
        color: prop(props, 'color'),
        icon: prop(props, 'icon', 'icon_emoji', 'icon_url', 'emoji'),
        title: prop(props, 'title'),
        threadTs: prop(props, 'thread_ts'),
      }),
    };
    return httpTarget({
      service: 'slack',
      config,
      markup: 'mrkdwn',
      masked,
      requests: (message) => slackRequest(config, message),
      checkAnswer: (response) =>
        config.mode === 'webhook'
          ? checkWebhookAnswer(response, masked)
          : checkApiAnswer(response, masked),
    });
  },
};

/** The chat.postMessage / webhook body. */
export function slackPayload(config: SlackConfig, message: NotifyMessage): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  if (config.color !== undefined) {
    const lines = message.text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    payload.text = config.title ?? '';
    payload.attachments = lines.slice(0, 100).map((line) => ({ text: line, color: config.color }));
  } else {
    payload.text = config.title === undefined ? message.text : `*${config.title}*\n${message.text}`;
  }
  if (config.botName !== undefined) payload.username = config.botName;
  if (config.channel !== undefined) payload.channel = config.channel;
  if (config.threadTs !== undefined) payload.thread_ts = config.threadTs;
  if (config.icon !== undefined) {
    payload[/^https?:\/\//.test(config.icon) ? 'icon_url' : 'icon_emoji'] = config.icon;
  }
  return payload;
}

/** A webhook takes the payload at its own URL; a bot posts it to chat.postMessage with its token. */
function slackRequest(config: SlackConfig, message: NotifyMessage): HttpRequest {
  const payload = slackPayload(config, message);
  if (config.mode === 'webhook') return postJson(config.token, payload);
  return {
    url: 'https://slack.com/api/chat.postMessage',
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      Authorization: `Bearer ${config.token}`,
    },
    body: JSON.stringify(payload),
  };
}

// Slack answers API errors with HTTP 200 and `ok: false`; these few mean "try again later".
const RETRYABLE_API_ERRORS = new Set(['ratelimited', 'service_unavailable', 'internal_error']);

/** A webhook answers `ok` (or nothing); anything else is a refusal in a 200. */
function checkWebhookAnswer(response: HttpResponse, masked: string): void {
  if (response.body !== '' && response.body !== 'ok') {
    throw new NotifySendError(`${masked}: unexpected answer${snippet(response.body)}`, {
      retryable: false,
    });
  }
}

function checkApiAnswer(response: HttpResponse, masked: string): void {
  const answer = parseJson(response.body) as { ok?: boolean; error?: string } | undefined;
  if (answer?.ok !== true) {
    const error = answer?.error ?? 'no ok:true in the answer';
    throw new NotifySendError(`${masked}: Slack refused the message: ${error}`, {
      retryable: RETRYABLE_API_ERRORS.has(error),
    });
  }
}
