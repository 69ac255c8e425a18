/**
 * Gotify: `gotify://host[:port][/subpath]/<app token>?priority=0&title=…` posts
 * `{message, title, priority}` to `/message?token=…`; `disabletls=yes` for a server without TLS.
 */
import { httpTarget, postJson } from './http-target.js';
import { urlError, type NotifyService } from './types.js';
import { boolProp, intProp, pathSegments, prop } from './url.js';

export interface GotifyConfig {
  /** Base URL with the sub path, no trailing slash. */
  baseUrl: string;
  token: string;
  priority: number;
  title?: string;
}

// Gotify app tokens: 15 characters starting with A (gotify/server auth/token.go).
const TOKEN = /^A[A-Za-z0-9._-]{14}$/;

export const gotifyService: NotifyService = {
  schemes: ['gotify'],
  parse(url, masked, props) {
    const segments = pathSegments(url, masked);
    const token = segments.pop() ?? '';
    if (url.hostname === '') throw urlError(masked, 'the host is missing');
    if (!TOKEN.test(token)) {
      throw urlError(
        masked,
        'the last path part must be the app token (15 characters starting with A)',
      );
    }
    const tls = !boolProp(props, 'disabletls', false, masked);
    const sub = segments.map(encodeURIComponent).join('/');
    const title = prop(props, 'title');
    const config: GotifyConfig = {
      baseUrl: `${tls ? 'https' : 'http'}://${url.host}${sub === '' ? '' : `/${sub}`}`,
      token,
      priority: intProp(props, 'priority', masked, { min: -2, max: 10 }) ?? 0,
      ...(title === undefined ? {} : { title }),
    };
    return httpTarget({
      service: 'gotify',
      config,
      markup: 'plain',
      masked,
      requests: (message) =>
        postJson(`${config.baseUrl}/message?token=${encodeURIComponent(token)}`, {
          message: message.text,
          title: config.title ?? message.title ?? 'kubemaint',
          priority: config.priority,
        }),
    });
  },
};
