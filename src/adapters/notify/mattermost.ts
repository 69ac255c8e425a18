/**
 * Mattermost incoming webhooks: `mattermost://[username@]host[:port]/<token>[/<channel>]?icon=…`
 * posts `{text, username, channel, icon_…}` to `/hooks/<token>`. Unlike shoutrrr the port is kept,
 * and `disabletls=yes` reaches a server without TLS.
 */
import { httpTarget, postJson } from './http-target.js';
import { optional } from './shape.js';
import { urlError, type NotifyService } from './types.js';
import { boolProp, pathSegments, prop, userOf } from './url.js';

export interface MattermostConfig {
  url: string;
  username?: string;
  channel?: string;
  icon?: string;
  title?: string;
}

export const mattermostService: NotifyService = {
  schemes: ['mattermost'],
  parse(url, masked, props) {
    const [token, channel, ...rest] = pathSegments(url, masked);
    if (url.hostname === '' || token === undefined || rest.length > 0) {
      throw urlError(
        masked,
        'expected host, token and an optional channel',
        'mattermost://[user@]host/<token>[/<channel>]',
      );
    }
    const tls = !boolProp(props, 'disabletls', false, masked);
    const config: MattermostConfig = {
      url: `${tls ? 'https' : 'http'}://${url.host}/hooks/${encodeURIComponent(token)}`,
      ...optional({
        username: userOf(url, masked) || undefined,
        channel: prop(props, 'channel') ?? channel,
        icon: prop(props, 'icon'),
        title: prop(props, 'title'),
      }),
    };
    return httpTarget({
      service: 'mattermost',
      config,
      markup: 'markdown',
      masked,
      requests: (message) => {
        const payload: Record<string, unknown> = {
          text: config.title === undefined ? message.text : `**${config.title}**\n${message.text}`,
          ...optional({ username: config.username, channel: config.channel }),
        };
        if (config.icon !== undefined) {
          payload[/^https?:\/\//.test(config.icon) ? 'icon_url' : 'icon_emoji'] = config.icon;
        }
        return postJson(config.url, payload);
      },
    });
  },
};
