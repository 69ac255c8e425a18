/**
 * shoutrrr-compatible notification URLs: the scheme picks the service, the service reads the rest.
 * `validateNotifyUrls` is what the config loader calls at start; its messages show each URL as
 * `scheme://host` only, because the rest of a notification URL is usually a secret.
 */
import { KubemaintError } from '../../errors.js';
import { discordService } from './discord.js';
import { genericService } from './generic.js';
import { googleChatService } from './googlechat.js';
import { gotifyService } from './gotify.js';
import { mattermostService } from './mattermost.js';
import { ntfyService } from './ntfy.js';
import { pushoverService } from './pushover.js';
import { slackService } from './slack.js';
import { smtpService } from './smtp.js';
import { teamsService } from './teams.js';
import { telegramService } from './telegram.js';
import { urlError, type NotifyService, type NotifyTarget } from './types.js';
import { maskUrl, queryProps } from './url.js';

export const SERVICES: readonly NotifyService[] = [
  slackService,
  discordService,
  teamsService,
  telegramService,
  smtpService,
  genericService,
  ntfyService,
  gotifyService,
  pushoverService,
  mattermostService,
  googleChatService,
];

const BY_SCHEME = new Map(SERVICES.flatMap((s) => s.schemes.map((scheme) => [scheme, s] as const)));

export const SUPPORTED_SCHEMES: readonly string[] = [...BY_SCHEME.keys()];

/** Parse one URL; a KubemaintError `config_invalid` (secrets masked) when it cannot be used. */
export function parseNotifyUrl(raw: string): NotifyTarget {
  const masked = maskUrl(raw);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw urlError(
      masked,
      'is not a URL',
      'a notification URL looks like slack://… or ntfy://ntfy.sh/topic',
    );
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const service = BY_SCHEME.get(scheme);
  if (service === undefined) {
    const hint =
      scheme === 'https' || scheme === 'http'
        ? `for a plain webhook write generic+${scheme}://…; a Teams workflow URL is teams+https://…`
        : `supported schemes: ${SUPPORTED_SCHEMES.join(', ')}`;
    throw urlError(masked, `unknown service "${scheme}"`, hint);
  }
  return service.parse(url, masked, queryProps(url));
}

export interface NotifyUrlProblem {
  /** Position in the list, so the config loader can say `notify.urls[2]`. */
  index: number;
  message: string;
  hint?: string;
}

/** Every unusable URL in the list; empty when all parse. */
export function validateNotifyUrls(urls: readonly string[]): NotifyUrlProblem[] {
  const problems: NotifyUrlProblem[] = [];
  urls.forEach((raw, index) => {
    try {
      parseNotifyUrl(raw);
    } catch (error) {
      if (!(error instanceof KubemaintError)) throw error;
      problems.push({ index, message: error.message, ...(error.hint ? { hint: error.hint } : {}) });
    }
  });
  return problems;
}

/** Parse all URLs or throw one config error that lists every problem. */
export function parseNotifyUrls(urls: readonly string[]): NotifyTarget[] {
  const problems = validateNotifyUrls(urls);
  if (problems.length > 0) {
    const list = problems.map((p) => `notify.urls[${p.index}]: ${p.message}`).join('\n  ');
    throw new KubemaintError('config_invalid', `notification URLs are invalid:\n  ${list}`, {
      hint: problems[0]?.hint ?? 'see docs/notifications.md',
    });
  }
  return urls.map(parseNotifyUrl);
}
