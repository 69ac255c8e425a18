/**
 * Google Chat incoming webhooks: `googlechat://chat.googleapis.com/v1/spaces/…/messages?key=…&token=…`
 * is the webhook URL with `https` swapped for `googlechat` (`hangouts://` is shoutrrr's old name).
 * The whole query belongs to Google (key and token are the secret).
 */
import { httpTarget } from './http-target.js';
import { urlError, type NotifyService } from './types.js';

export interface GoogleChatConfig {
  url: string;
}

export const googleChatService: NotifyService = {
  schemes: ['googlechat', 'hangouts'],
  parse(url, masked) {
    if (url.hostname === '' || url.pathname.length <= 1) {
      throw urlError(masked, 'expected the webhook URL with googlechat:// in place of https://');
    }
    if (!url.searchParams.has('key') || !url.searchParams.has('token')) {
      throw urlError(masked, 'the webhook URL needs its key and token query parameters');
    }
    const config: GoogleChatConfig = { url: `https://${url.host}${url.pathname}${url.search}` };
    return httpTarget({
      service: 'googlechat',
      config,
      markup: 'googlechat',
      masked,
      // Google's documented content type, charset included (postJson's has none).
      requests: (message) => ({
        url: config.url,
        headers: { 'Content-Type': 'application/json; charset=UTF-8' },
        body: JSON.stringify({ text: message.text }),
      }),
    });
  },
};
