/**
 * Escaping for the chat formats kubemaint writes (ADR 0009, docs/adr): one function per format,
 * applied to every value that people, agents or the cluster control (reasons, node names, packages,
 * requesters, Slack-typed text) where a template puts it into a message, and never to kubemaint's
 * own markup around it. Each keeps the text readable and makes what would be live inert: mentions
 * that notify (`<!channel>`, `@here`, `<users/all>`) and links whose label hides their target; where
 * the format has escapes, syntax that would swallow the formatting around the value too. Line breaks
 * stay: failure output needs them.
 */

/** The message formats of Slack, Mattermost and the notification services. */
export const MARKUPS = [
  /** Slack mrkdwn (Block Kit, the top-level `text`, Slack notification URLs). */
  'mrkdwn',
  /** CommonMark-like: Mattermost, Discord embeds, Teams Adaptive Card text. */
  'markdown',
  /** Discord's raw webhook body: markdown inside a JSON string the template author wrote. */
  'markdown-json',
  /** Google Chat's own syntax (`<url|label>`, `<users/all>`), which has no escape. */
  'googlechat',
  /** Telegram's legacy Markdown parse mode. */
  'telegram-markdown',
  /** Telegram's MarkdownV2 parse mode: every reserved character needs a backslash. */
  'telegram-markdownv2',
  /** HTML bodies: Telegram's HTML mode, e-mail with `usehtml`. */
  'html',
  /** Shown as typed: ntfy, Gotify, Pushover, plain e-mail, generic webhooks. */
  'plain',
] as const;

export type Markup = (typeof MARKUPS)[number];

// WORD JOINER: invisible, and enough to keep `@here` or `<users/all>` from being recognised.
const JOINER = '\u2060';

/** `@here`, `@channel`, `@all`, `@someone`: shown the same, notify nobody. */
const inertMentions = (text: string): string => text.replace(/@(?=[\p{L}\p{N}_])/gu, `@${JOINER}`);

/**
 * Slack mrkdwn: `&`, `<` and `>` become entities (Slack's only escapes, reference §3), so
 * `<!channel>`, `<@U…>` and `<https://x|label>` show as typed. `*`, `_`, `~` and backticks have no
 * escape in Slack and can only change how a part of the line looks, so they stay (a value inside a
 * code span is the exception: see templates/slack/mrkdwn.ts `code`).
 */
export const escapeMrkdwn = (text: string): string =>
  inertMentions(text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));

/**
 * CommonMark: a backslash before the characters that open emphasis, code, links, autolinks, HTML,
 * entities, headings, quotes and tables. Other punctuation stays bare, so node names stay readable.
 */
export const escapeMarkdown = (text: string): string =>
  inertMentions(text.replace(/[\\`*_~[\]<>&#|]/g, '\\$&'));

const escapeJsonString = (text: string): string => JSON.stringify(text).slice(1, -1);

/** Google Chat: no escapes exist, so the joiner breaks `<users/all>` and `<https://x|label>`. */
const escapeGoogleChat = (text: string): string => inertMentions(text.replace(/</g, `<${JOINER}`));

// Telegram's own lists (core.telegram.org/bots/api#formatting-options).
const escapeTelegramMarkdown = (text: string): string =>
  inertMentions(text.replace(/[_*`[]/g, '\\$&'));
const escapeTelegramMarkdownV2 = (text: string): string =>
  inertMentions(text.replace(/[\\_*[\]()~`>#+\-=|{}.!]/g, '\\$&'));

export const escapeHtml = (text: string): string =>
  inertMentions(text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));

const ESCAPE: Readonly<Record<Markup, (text: string) => string>> = {
  mrkdwn: escapeMrkdwn,
  markdown: escapeMarkdown,
  'markdown-json': (text) => escapeJsonString(escapeMarkdown(text)),
  googlechat: escapeGoogleChat,
  'telegram-markdown': escapeTelegramMarkdown,
  'telegram-markdownv2': escapeTelegramMarkdownV2,
  html: escapeHtml,
  plain: (text) => text,
};

/** The escape of `markup`: what a template applies to each value it puts into such a message. */
export const escaperFor = (markup: Markup): ((text: string) => string) => ESCAPE[markup];
