/**
 * Discord webhooks: `discord://<token>@<webhook id>[/raw]`. The message goes out as embeds (one per
 * line unless `splitlines=no`, Discord allows 10), or, with `/raw` or `json=yes`, the message text
 * itself is the JSON body.
 */
import { jsonHeaders } from './http.js';
import { httpTarget, postJson } from './http-target.js';
import { optional } from './shape.js';
import { urlError, type NotifyMessage, type NotifyService } from './types.js';
import { boolProp, decodePart, pathSegments, prop, userOf } from './url.js';

export interface DiscordConfig {
  webhookId: string;
  token: string;
  raw: boolean;
  splitLines: boolean;
  color: number;
  username?: string;
  avatarUrl?: string;
  title?: string;
  threadId?: string;
}

const MAX_EMBEDS = 10;
// shoutrrr's default embed colour.
const DEFAULT_COLOR = 0x50d9ff;

export const discordService: NotifyService = {
  schemes: ['discord'],
  parse(url, masked, props) {
    const token = userOf(url, masked);
    const webhookId = decodePart(url.hostname, masked, 'webhook id');
    if (token === '')
      throw urlError(masked, 'the webhook token is missing', 'discord://<token>@<webhook id>');
    if (!/^\d+$/.test(webhookId)) throw urlError(masked, 'the webhook id must be digits');
    const path = pathSegments(url, masked);
    if (path.length > 1 || (path.length === 1 && path[0] !== 'raw')) {
      throw urlError(masked, 'the only path Discord URLs take is /raw');
    }
    const config: DiscordConfig = {
      webhookId,
      token,
      raw: path[0] === 'raw' || boolProp(props, 'json', false, masked),
      splitLines: boolProp(props, 'splitlines', true, masked),
      color: parseColor(prop(props, 'color'), masked),
      ...optional({
        username: prop(props, 'username'),
        avatarUrl: prop(props, 'avatar', 'avatarurl'),
        title: prop(props, 'title'),
        threadId: prop(props, 'thread_id'),
      }),
    };
    const query =
      config.threadId === undefined ? '' : `?thread_id=${encodeURIComponent(config.threadId)}`;
    const hook = `https://discord.com/api/webhooks/${webhookId}/${encodeURIComponent(token)}${query}`;
    return httpTarget({
      service: 'discord',
      config,
      // Raw: the template is the JSON body, so a value lands inside a JSON string.
      markup: config.raw ? 'markdown-json' : 'markdown',
      masked,
      requests: (message) =>
        config.raw
          ? { url: hook, headers: jsonHeaders, body: message.text }
          : postJson(hook, discordPayload(config, message)),
    });
  },
};

export function discordPayload(
  config: DiscordConfig,
  message: NotifyMessage,
): Record<string, unknown> {
  const lines = config.splitLines
    ? message.text.split('\n').filter((line) => line.trim() !== '')
    : [message.text];
  // Past Discord's limit the remaining lines share the last embed instead of being dropped.
  const chunks = lines.slice(0, MAX_EMBEDS - 1);
  if (lines.length >= MAX_EMBEDS) chunks.push(lines.slice(MAX_EMBEDS - 1).join('\n'));
  const embeds = chunks.map((description, i) => ({
    ...(i === 0 && config.title !== undefined ? { title: config.title } : {}),
    description,
    color: config.color,
  }));
  return {
    embeds,
    ...optional({ username: config.username, avatar_url: config.avatarUrl }),
  };
}

/** `0x50D9ff`, `#50d9ff` or a decimal number, as shoutrrr accepts. */
function parseColor(value: string | undefined, masked: string): number {
  if (value === undefined) return DEFAULT_COLOR;
  const hex = /^(?:0x|#)([0-9a-f]{1,6})$/i.exec(value);
  const n = hex ? parseInt(hex[1]!, 16) : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n > 0xffffff) {
    throw urlError(
      masked,
      `color=${value} is not a colour`,
      'write it as 0x50D9ff (escape # as %23)',
    );
  }
  return n;
}
