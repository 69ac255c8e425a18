/**
 * Microsoft Teams through a Workflows (Power Automate) webhook: `teams+https://<workflow URL>`. The
 * body is the Adaptive Card message the "Post to a channel when a webhook request is received"
 * template expects. The Office 365 connector URLs shoutrrr's `teams://` builds are retired by
 * Microsoft, so they are refused with a message that says what to use instead.
 */
import { httpTarget, postJson } from './http-target.js';
import { optional } from './shape.js';
import { urlError, type NotifyMessage, type NotifyService } from './types.js';
import { prop } from './url.js';

export interface TeamsConfig {
  /** The workflow URL as Teams gave it, its `sig` included (that is the secret). */
  url: string;
  title?: string;
}

const RETIRED_HINT =
  'Microsoft retired Office 365 connectors: in Teams, add the "Post to a channel when a webhook ' +
  'request is received" workflow and use its URL as teams+https://<that URL without https://>';

// Our own options; everything else in the query belongs to the workflow URL (api-version, sp, sv, sig).
const OWN_KEYS = new Set(['title']);

export const teamsService: NotifyService = {
  schemes: ['teams', 'teams+https'],
  parse(url, masked, props) {
    if (url.protocol === 'teams:') {
      throw urlError(masked, 'teams:// is the retired Office 365 connector format', RETIRED_HINT);
    }
    if (/(^|\.)webhook\.office\.com$|^outlook\.office(365)?\.com$/i.test(url.hostname)) {
      throw urlError(masked, 'this is a retired Office 365 connector webhook', RETIRED_HINT);
    }
    if (url.hostname === '' || url.pathname.length <= 1) {
      throw urlError(masked, 'the workflow URL has no host or path', RETIRED_HINT);
    }
    const forwarded = new URLSearchParams();
    for (const [key, value] of url.searchParams) {
      if (!OWN_KEYS.has(key.toLowerCase())) forwarded.append(key, value);
    }
    const query = forwarded.size > 0 ? `?${forwarded.toString()}` : '';
    const config: TeamsConfig = {
      url: `https://${url.host}${url.pathname}${query}`,
      ...optional({ title: prop(props, 'title') }),
    };
    return httpTarget({
      service: 'teams',
      config,
      markup: 'markdown',
      // Adaptive Card TextBlocks read markdown, the title's included.
      titleMarkup: 'markdown',
      masked,
      requests: (message) => postJson(config.url, teamsPayload(config, message)),
    });
  },
};

/** A message with one Adaptive Card: an optional bold title, then the text. */
export function teamsPayload(config: TeamsConfig, message: NotifyMessage): Record<string, unknown> {
  const title = config.title ?? message.title;
  const body = [
    ...(title === undefined
      ? []
      : [{ type: 'TextBlock', text: title, weight: 'Bolder', size: 'Medium', wrap: true }]),
    { type: 'TextBlock', text: message.text, wrap: true },
  ];
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
        },
      },
    ],
  };
}
