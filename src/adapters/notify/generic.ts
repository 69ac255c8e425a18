/**
 * Any HTTP endpoint: `generic+https://host/path?…` (or `generic://host/path`, https unless
 * `disabletls=yes`). The body is the raw message, or with `template=json` a JSON object
 * `{title, message, …$extra}`. `@Header=value` adds a header, `$key=value` a JSON field, and every
 * other query key goes on to the endpoint (`_key` passes a key this service would otherwise take).
 * `user:password@` becomes Basic auth.
 */
import { httpTarget } from './http-target.js';
import { optional } from './shape.js';
import { urlError, type NotifyMessage, type NotifyService } from './types.js';
import { boolProp, passwordOf, prop, userOf } from './url.js';

export interface GenericConfig {
  url: string;
  method: string;
  contentType: string;
  template?: 'json';
  titleKey: string;
  messageKey: string;
  headers: Record<string, string>;
  extra: Record<string, string>;
  title?: string;
}

const OWN_KEYS = new Set([
  'template',
  'titlekey',
  'messagekey',
  'contenttype',
  'method',
  'disabletls',
  'title',
]);
// Methods that carry a body: the message is the body.
const METHODS = new Set(['POST', 'PUT', 'PATCH']);

export const genericService: NotifyService = {
  schemes: ['generic', 'generic+https', 'generic+http'],
  parse(url, masked, props) {
    const scheme = url.protocol.slice(0, -1);
    const tls =
      scheme === 'generic'
        ? !boolProp(props, 'disabletls', false, masked)
        : scheme.endsWith('https');
    if (url.hostname === '') throw urlError(masked, 'the endpoint host is missing');
    const headers: Record<string, string> = {};
    const extra: Record<string, string> = {};
    const forwarded = new URLSearchParams();
    for (const [key, value] of url.searchParams) {
      if (key.startsWith('@') && key.length > 1) headers[headerName(key.slice(1))] = value;
      else if (key.startsWith('$') && key.length > 1) extra[key.slice(1)] = value;
      else if (key.startsWith('_') && key.length > 1) forwarded.append(key.slice(1), value);
      else if (!OWN_KEYS.has(key.toLowerCase())) forwarded.append(key, value);
    }
    // Credentials in the URL become Basic auth, as curl and most HTTP clients treat them.
    if (url.username !== '' || url.password !== '') {
      const user = `${userOf(url, masked)}:${passwordOf(url, masked)}`;
      headers.Authorization ??= `Basic ${Buffer.from(user).toString('base64')}`;
    }
    const template = prop(props, 'template');
    if (template !== undefined && template.toLowerCase() !== 'json') {
      throw urlError(masked, `template=${template} is unknown; the one built-in template is json`);
    }
    const method = (prop(props, 'method') ?? 'POST').toUpperCase();
    if (!METHODS.has(method))
      throw urlError(masked, `method=${method} is not an HTTP method for a webhook`);
    const query = forwarded.size > 0 ? `?${forwarded.toString()}` : '';
    const config: GenericConfig = {
      url: `${tls ? 'https' : 'http'}://${url.host}${url.pathname}${query}`,
      method,
      contentType:
        prop(props, 'contenttype') ??
        (template === undefined ? 'text/plain; charset=utf-8' : 'application/json'),
      titleKey: prop(props, 'titlekey') ?? 'title',
      messageKey: prop(props, 'messagekey') ?? 'message',
      headers,
      extra,
      ...optional({
        template: template === undefined ? undefined : ('json' as const),
        title: prop(props, 'title'),
      }),
    };
    return httpTarget({
      service: 'generic',
      config,
      // The body's format is the config author's (contentType); values go in as they are.
      markup: 'plain',
      masked,
      requests: (message) => ({
        method: config.method,
        url: config.url,
        headers: { ...config.headers, 'Content-Type': config.contentType },
        body: genericBody(config, message),
      }),
    });
  },
};

export function genericBody(config: GenericConfig, message: NotifyMessage): string {
  if (config.template === undefined) return message.text;
  const title = config.title ?? message.title;
  return JSON.stringify({
    ...(title === undefined ? {} : { [config.titleKey]: title }),
    [config.messageKey]: message.text,
    ...config.extra,
  });
}

/** `xApiKey` → `X-Api-Key`, `authorization` → `Authorization`; names with dashes stay as written. */
export function headerName(key: string): string {
  if (key.includes('-')) return key;
  return key
    .split(/(?=[A-Z])/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('-');
}
