/**
 * Secrets come from the environment, never from the config file (DESIGN §3). This module finds
 * token-looking values in the file (an error that names the env var to use instead), masks such
 * values wherever a message would echo them, and reads the Slack secrets from the environment
 * into `Secret` wrappers that print as `[redacted]` in logs, JSON and `console.log`.
 */
import { maskToken, maskTokens, TOKEN_PATTERNS } from '../core/redact.js';
import { formatPath, type Problem } from './problems.js';

interface TokenKind {
  pattern: RegExp;
  what: string;
  /** Where this kind of secret belongs instead of the file. */
  instead: string;
}

/** Only a whole value this shape is a signing secret: inside text it is as likely a build id. */
const SIGNING_SECRET = /^[0-9a-f]{32}$/;

// Checked in order: the first kind that matches names the env var in the message.
const TOKEN_KINDS: readonly TokenKind[] = [
  {
    pattern: TOKEN_PATTERNS.slackBot,
    what: 'a Slack bot token',
    instead: 'set SLACK_BOT_TOKEN in the environment',
  },
  {
    pattern: TOKEN_PATTERNS.slackApp,
    what: 'a Slack app-level token',
    instead: 'set SLACK_APP_TOKEN in the environment',
  },
  {
    pattern: TOKEN_PATTERNS.slackOther,
    what: 'a Slack token',
    instead: 'set SLACK_BOT_TOKEN in the environment',
  },
  {
    pattern: SIGNING_SECRET,
    what: 'a Slack signing secret',
    instead: 'set SLACK_SIGNING_SECRET in the environment',
  },
  {
    pattern: TOKEN_PATTERNS.github,
    what: 'a GitHub token',
    instead: 'keep it in the environment',
  },
  {
    pattern: TOKEN_PATTERNS.awsKey,
    what: 'an AWS access key',
    instead: 'use the AWS credential chain (role, AWS_ACCESS_KEY_ID)',
  },
  {
    pattern: TOKEN_PATTERNS.jwt,
    what: 'a bearer token (JWT)',
    instead: 'use a kubeconfig or the in-cluster service account',
  },
  {
    pattern: TOKEN_PATTERNS.privateKey,
    what: 'a private key',
    instead: 'keep it in a file outside the config',
  },
];

/** The kind of secret a string contains, if any. */
export function secretKind(value: string): TokenKind | undefined {
  return TOKEN_KINDS.find((kind) => kind.pattern.test(value));
}

/** A URL inside text, up to the next space or quote. */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'`]+/gi;

/**
 * Replaces every token-looking part with its first four characters and `…(masked)`, and every URL
 * with its scheme and host: a URL typed where another value goes (`end: https://user:pass@…`,
 * `urls: https://…` without the list) is quoted back by checks that know nothing of secrets.
 */
export function maskSecrets(value: string): string {
  return maskTokens(value.replace(URL_IN_TEXT, (url) => redactUrl(url))).replace(
    SIGNING_SECRET,
    maskToken,
  );
}

/**
 * A URL as it may appear in a message: scheme, host and port only, because notification URLs carry
 * their credentials in the user info, the path or the query (shoutrrr style).
 */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.host === '') return `${url.protocol}(value masked)`;
    const userInfo = url.username !== '' || url.password !== '' ? '***@' : '';
    const rest = url.pathname.length > 1 || url.search !== '' || url.hash !== '' ? '/***' : '';
    return `${url.protocol}//${userInfo}${url.host}${rest}`;
  } catch {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(value)?.[0];
    return scheme === undefined ? '(value masked)' : `${scheme}(value masked)`;
  }
}

/** Every string in the parsed file that looks like a secret, as a problem at its path. */
export function findSecretsInFile(document: unknown): Problem[] {
  const problems: Problem[] = [];
  const visit = (value: unknown, path: PropertyKey[]): void => {
    if (typeof value === 'string') {
      const kind = secretKind(value);
      if (kind !== undefined) {
        problems.push({
          path: formatPath(path),
          message: `looks like ${kind.what} (value masked); secrets never go in the config file`,
          hint: kind.instead,
        });
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, [...path, index]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
    }
  };
  visit(document, []);
  return problems;
}

/** Keys that look like someone tried to put a secret in the file; the hint points to the env. */
export function secretKeyHint(key: string): string | undefined {
  const folded = key.toLowerCase();
  if (folded.includes('signing'))
    return 'secrets come from the environment: set SLACK_SIGNING_SECRET';
  if (folded.includes('apptoken')) return 'secrets come from the environment: set SLACK_APP_TOKEN';
  if (/token|secret|password|passwd|apikey/.test(folded)) {
    return 'secrets come from the environment (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_APP_TOKEN)';
  }
  return undefined;
}
