/**
 * ntfy: `ntfy://[user:password@]host/<topic>?priority=high&tags=a,b&…` posts the plain message to
 * `<scheme>://host/<topic>`; the options travel as ntfy's headers. `scheme=http` reaches a server
 * without TLS. A password alone (empty user) is how ntfy access tokens are given.
 */
import { httpTarget } from './http-target.js';
import { optional } from './shape.js';
import { urlError, type NotifyService } from './types.js';
import { boolProp, pathSegments, passwordOf, prop, userOf } from './url.js';

export interface NtfyConfig {
  url: string;
  headers: Record<string, string>;
  title?: string;
}

// URL option → ntfy header (https://docs.ntfy.sh/publish/).
const HEADER_OPTIONS = {
  tags: 'Tags',
  delay: 'Delay',
  actions: 'Actions',
  click: 'Click',
  attach: 'Attach',
  filename: 'Filename',
  email: 'Email',
  icon: 'X-Icon',
} as const;
const PRIORITIES = new Set([
  '1',
  '2',
  '3',
  '4',
  '5',
  'min',
  'low',
  'default',
  'high',
  'max',
  'urgent',
]);

export const ntfyService: NotifyService = {
  schemes: ['ntfy'],
  parse(url, masked, props) {
    const topic = pathSegments(url, masked).join('/');
    if (url.hostname === '' || topic === '') {
      throw urlError(masked, 'the host or topic is missing', 'ntfy://ntfy.sh/<topic>');
    }
    const scheme = (prop(props, 'scheme') ?? 'https').toLowerCase();
    if (scheme !== 'https' && scheme !== 'http')
      throw urlError(masked, `scheme=${scheme} is not http or https`);
    const headers: Record<string, string> = {};
    const priority = prop(props, 'priority');
    if (priority !== undefined) {
      if (!PRIORITIES.has(priority.toLowerCase())) {
        throw urlError(masked, `priority=${priority} is not 1-5 or min, low, default, high, max`);
      }
      headers.Priority = priority.toLowerCase();
    }
    for (const [key, header] of Object.entries(HEADER_OPTIONS)) {
      const value = prop(props, key);
      if (value !== undefined) headers[header] = value;
    }
    if (!boolProp(props, 'cache', true, masked)) headers.Cache = 'no';
    if (!boolProp(props, 'firebase', true, masked)) headers.Firebase = 'no';
    const password = passwordOf(url, masked);
    if (password !== '') {
      const basic = Buffer.from(`${userOf(url, masked)}:${password}`).toString('base64');
      headers.Authorization = `Basic ${basic}`;
    }
    const config: NtfyConfig = {
      url: `${scheme}://${url.host}/${topic.split('/').map(encodeURIComponent).join('/')}`,
      headers,
      ...optional({ title: prop(props, 'title') }),
    };
    return httpTarget({
      service: 'ntfy',
      config,
      markup: 'plain',
      masked,
      requests: (message) => {
        const title = config.title ?? message.title;
        return {
          url: config.url,
          headers: {
            ...config.headers,
            ...(title === undefined ? {} : { Title: headerSafe(title) }),
            'Content-Type': 'text/plain; charset=utf-8',
          },
          body: message.text,
        };
      },
    });
  },
};

// Header values cannot hold newlines, and fetch refuses characters outside Latin-1.
export const headerSafe = (text: string): string =>
  text.replace(/[\r\n]+/g, ' ').replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
