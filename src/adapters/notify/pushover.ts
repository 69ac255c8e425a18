/**
 * Pushover: `pushover://shoutrrr:<api token>@<user key>/?devices=d1,d2&priority=1&title=…` posts a
 * form to the messages API, once per device (or once for all of the user's devices).
 */
import { httpTarget } from './http-target.js';
import { optional } from './shape.js';
import { urlError, type NotifyMessage, type NotifyService, type NotifyTarget } from './types.js';
import { decodePart, intProp, listProp, passwordOf, prop } from './url.js';

export interface PushoverConfig {
  token: string;
  user: string;
  devices: string[];
  priority?: number;
  title?: string;
}

export const pushoverService: NotifyService = {
  schemes: ['pushover'],
  parse(url, masked, props) {
    const token = passwordOf(url, masked);
    const user = decodePart(url.hostname, masked, 'user key');
    if (!/^[A-Za-z0-9]+$/.test(token)) {
      throw urlError(
        masked,
        'the API token is missing',
        'pushover://shoutrrr:<api token>@<user key>/',
      );
    }
    if (!/^[A-Za-z0-9]+$/.test(user))
      throw urlError(masked, 'the user key is missing or not alphanumeric');
    const config: PushoverConfig = {
      token,
      user,
      devices: listProp(props, 'devices'),
      ...optional({
        // Pushover takes -2..2; 2 (emergency) needs retry/expire parameters shoutrrr never sends.
        priority: intProp(props, 'priority', masked, { min: -2, max: 1 }),
        title: prop(props, 'title'),
      }),
    };
    return pushoverTarget(config, masked);
  },
};

function pushoverTarget(config: PushoverConfig, masked: string): NotifyTarget {
  return httpTarget({
    service: 'pushover',
    config,
    markup: 'plain',
    masked,
    // No devices: one message to all of the user's devices.
    requests: (message) =>
      (config.devices.length > 0 ? config.devices : [undefined]).map((device) => ({
        url: 'https://api.pushover.net/1/messages.json',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: pushoverForm(config, message, device).toString(),
      })),
    recipients: () =>
      config.devices.length <= 1
        ? [pushoverTarget(config, masked)]
        : config.devices.map((device) => pushoverTarget({ ...config, devices: [device] }, masked)),
  });
}

function pushoverForm(
  config: PushoverConfig,
  message: NotifyMessage,
  device: string | undefined,
): URLSearchParams {
  const form = new URLSearchParams({
    token: config.token,
    user: config.user,
    message: message.text,
  });
  if (device !== undefined) form.set('device', device);
  const title = config.title ?? message.title;
  if (title !== undefined) form.set('title', title);
  if (config.priority !== undefined) form.set('priority', String(config.priority));
  return form;
}
