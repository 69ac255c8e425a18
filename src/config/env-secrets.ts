/**
 * The Slack secrets, read from the environment (never from the file) and checked for shape and
 * for a usable combination. Values are wrapped in `Secret`, which prints as `[redacted]`, so a
 * config object can be logged or dumped without leaking them.
 */
import type { Problem } from './problems.js';

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** A secret value; only `reveal()` gives the text, every other way of printing it is redacted. */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [INSPECT](): string {
    return 'Secret([redacted])';
  }
}

export interface SlackSecrets {
  /** `SLACK_BOT_TOKEN` (`xoxb-…`): posts prompts and replies. */
  botToken?: Secret;
  /** `SLACK_SIGNING_SECRET`: verifies requests in HTTP mode (Lambda or `serve` over HTTP). */
  signingSecret?: Secret;
  /** `SLACK_APP_TOKEN` (`xapp-…`): Socket Mode, so `serve` needs no public endpoint. */
  appToken?: Secret;
}

export type Env = Readonly<Record<string, string | undefined>>;

const SHAPES = [
  { name: 'SLACK_BOT_TOKEN', key: 'botToken', prefix: 'xoxb-', what: 'a bot token' },
  { name: 'SLACK_APP_TOKEN', key: 'appToken', prefix: 'xapp-', what: 'an app-level token' },
  { name: 'SLACK_SIGNING_SECRET', key: 'signingSecret', prefix: '', what: 'a signing secret' },
] as const;

/** Reads and checks the Slack secrets; an empty variable counts as unset. Never echoes a value. */
export function readSlackSecrets(env: Env): { secrets: SlackSecrets; problems: Problem[] } {
  const secrets: SlackSecrets = {};
  const problems: Problem[] = [];
  for (const shape of SHAPES) {
    const value = env[shape.name]?.trim();
    if (value === undefined || value === '') continue;
    if (!value.startsWith(shape.prefix) || /\s/.test(value)) {
      problems.push({
        path: `$${shape.name}`,
        message: `is set but does not look like ${shape.what} (value masked)`,
        hint:
          shape.prefix === ''
            ? 'copy it from the app\'s "Basic Information" page, without spaces'
            : `it starts with \`${shape.prefix}\`; copy it from the Slack app's settings`,
      });
      continue;
    }
    secrets[shape.key] = new Secret(value);
  }
  problems.push(...combinationProblems(env));
  return { secrets, problems };
}

// Bolt needs the bot token plus a way to receive requests: a signing secret (HTTP) or an app
// token (Socket Mode). Half a setup would start and then silently never hear from Slack.
function combinationProblems(env: Env): Problem[] {
  const has = (name: string): boolean => (env[name]?.trim() ?? '') !== '';
  const bot = has('SLACK_BOT_TOKEN');
  const inbound = has('SLACK_SIGNING_SECRET') || has('SLACK_APP_TOKEN');
  if (bot && !inbound) {
    return [
      {
        path: '$SLACK_BOT_TOKEN',
        message: 'is set, but neither SLACK_SIGNING_SECRET nor SLACK_APP_TOKEN is',
        hint: 'set SLACK_APP_TOKEN for Socket Mode, or SLACK_SIGNING_SECRET for HTTP',
      },
    ];
  }
  if (!bot && inbound) {
    const name = has('SLACK_APP_TOKEN') ? 'SLACK_APP_TOKEN' : 'SLACK_SIGNING_SECRET';
    return [
      {
        path: `$${name}`,
        message: 'is set, but SLACK_BOT_TOKEN is not',
        hint: 'set SLACK_BOT_TOKEN (xoxb-…) too, or unset it to run without Slack',
      },
    ];
  }
  return [];
}
