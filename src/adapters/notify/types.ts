/**
 * The contract every notification service implements: parse a shoutrrr-style URL into a target once
 * (at start, so a bad URL is a config error then), and send a message to it later. Targets mask their
 * secrets in `describe()`, the only form of a target that may reach a log or an error message.
 */
import type { Markup } from '../../core/markup.js';
import { KubemaintError } from '../../errors.js';

export interface NotifyMessage {
  text: string;
  /** Shown where the service has a subject line; a `title=` in the URL wins over it. */
  title?: string;
}

/** How a send reaches the network; everything optional has a production default. */
export interface SendIo {
  fetch?: typeof fetch;
  /**
   * Tests only: replaces scheme, host and port of every HTTP request (`http://127.0.0.1:4567`), so a
   * local receiver can check the exact path, headers and body a real service would get.
   */
  baseUrl?: string;
  /** Per HTTP request or SMTP session. @default 10000 */
  timeoutMs?: number;
}

export interface NotifyTarget {
  /** Service name, e.g. `slack`, `smtp`. */
  readonly service: string;
  /** The parsed settings, secrets included: for tests and the sender, never for logs. */
  readonly config: unknown;
  /**
   * How the service reads `text`, which decides the escape every placeholder value gets when a
   * template is rendered for it (core/markup.ts); the template's own text is sent as written.
   */
  readonly markup: Markup;
  /** The same for `title`. @default 'plain' */
  readonly titleMarkup?: Markup;
  /** `scheme://host`, nothing secret: safe for logs and errors. */
  describe(): string;
  send(message: NotifyMessage, io?: SendIo): Promise<void>;
  /**
   * For services that send once per chat or device: one target per recipient, so a retry after a
   * partial failure repeats only the recipients that did not get the message.
   */
  recipients?(): NotifyTarget[];
}

/** One service: its URL schemes and how to turn a URL into a target. */
export interface NotifyService {
  readonly schemes: readonly string[];
  /**
   * `masked` is the URL without secrets, for errors; `props` is its query with the keys lower-cased,
   * read once by the registry because shoutrrr treats every option name case-insensitively.
   */
  parse(url: URL, masked: string, props: ReadonlyMap<string, string>): NotifyTarget;
}

/** A URL that cannot be used; the message names the masked URL, never a secret. */
export function urlError(masked: string, problem: string, hint?: string): KubemaintError {
  return new KubemaintError('config_invalid', `notify URL ${masked}: ${problem}`, {
    hint: hint ?? 'see docs/notifications.md for the format of each service',
  });
}

/**
 * A send that did not go through. `retryable` separates a busy or broken service (429, 5xx, network)
 * from a refusal that will not change by trying again (bad token, unknown channel).
 */
export class NotifySendError extends KubemaintError {
  readonly status: number | undefined;
  readonly retryable: boolean;
  /** From a 429's Retry-After (or the service's own field for it), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: { status?: number; retryable: boolean; retryAfterMs?: number; cause?: unknown },
  ) {
    super('unexpected', message, { cause: options.cause });
    this.name = 'NotifySendError';
    this.status = options.status;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
  }
}
