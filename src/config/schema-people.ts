/**
 * Who is asked and told: `approval` (who may approve and propose, the two-person rule, expiry,
 * auto-approval by node selector; the identity lists live in schema-identities.ts), `slack` (the
 * channel, the channels decisions are taken in, the slash command; the tokens come from the
 * environment) and `notify` (shoutrrr-style URLs and per-event message templates).
 */
import { z } from 'zod';
import { EVENT_KINDS, type EventKind } from '../core/events.js';
import { checkedText, duration, labelSelector, slackId } from './fields.js';
import { validateNotifyUrls } from '../adapters/notify/parse.js';
import { redactUrl } from './secrets.js';
import type { Problem } from './problems.js';
import { ApproversSchema, ProposersSchema } from './schema-identities.js';
import { suggestionHint } from './suggest.js';

export const ApprovalSchema = z.strictObject({
  approvers: ApproversSchema,
  /** Who may propose by hand besides the approvers (detection needs no one's permission). */
  proposers: ProposersSchema,
  twoPerson: z.boolean().default(false),
  expiry: duration().default(72 * 3_600_000),
  autoApprove: z
    .strictObject({
      nodeSelector: labelSelector(),
      /** Also approve requests people typed by hand (default: only what detection proposed). */
      manual: z.boolean().default(false),
    })
    .optional(),
});

export const SlackSchema = z.strictObject({
  channel: slackId('channel', 'CG', 'C0123ABCD').optional(),
  command: checkedText((text) =>
    /^\/[a-z0-9_-]{1,31}$/.test(text)
      ? undefined
      : {
          message: `"${text}" is not a slash command name`,
          hint: 'e.g. /maint (lowercase, starts with /)',
        },
  ).default('/maint'),
  allowedChannels: z.array(slackId('channel', 'CG', 'C0123ABCD')).default([]),
});

/**
 * What the `slack` section needs once Slack is on (`SLACK_BOT_TOKEN` set): a channel for prompts,
 * and the channels decisions are accepted in, which must include the prompts' own channel (their
 * buttons are decisions too). With Slack off neither is needed.
 */
export function slackProblems(slack: z.output<typeof SlackSchema>, slackOn: boolean): Problem[] {
  const problems: Problem[] = [];
  if (slackOn && slack.channel === undefined) {
    problems.push({
      path: 'slack.channel',
      message: 'is required when SLACK_BOT_TOKEN is set',
      hint: 'the channel ID for prompts, e.g. C0123ABCD',
    });
  }
  if (slackOn && slack.allowedChannels.length === 0) {
    problems.push({
      path: 'slack.allowedChannels',
      message:
        'is required when SLACK_BOT_TOKEN is set: without it decisions are taken in any channel',
      hint: `list the channel IDs kubemaint takes commands and clicks in, at least the prompt channel, e.g. [${slack.channel ?? 'C0123ABCD'}]`,
    });
  } else if (
    slack.channel !== undefined &&
    slack.allowedChannels.length > 0 &&
    !slack.allowedChannels.includes(slack.channel)
  ) {
    problems.push({
      path: 'slack.allowedChannels',
      message: `does not include slack.channel (${slack.channel}), so the buttons of every prompt would be refused`,
      hint: `add ${slack.channel} to the list`,
    });
  }
  return problems;
}

/** Names a template may use as `{{name}}`: the fields of MaintenanceEvent (src/core/events.ts). */
export const TEMPLATE_FIELDS = [
  'kind',
  'node',
  'cluster',
  'requestId',
  'action',
  'reason',
  'approver',
  'duration',
  'detail',
  'targetVersion',
  'at',
] as const;

const template = checkedText((text) => {
  for (const [, name = ''] of text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)) {
    if ((TEMPLATE_FIELDS as readonly string[]).includes(name)) continue;
    return {
      message: `uses {{${name}}}, which is not a field of the event`,
      hint: suggestionHint(name, TEMPLATE_FIELDS) ?? '',
    };
  }
  return undefined;
});

const notifyUrl = checkedText((text) => {
  let ok: boolean;
  try {
    ok = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) && new URL(text).protocol !== '';
  } catch {
    ok = false;
  }
  if (!ok) {
    return {
      message: `${redactUrl(text)} is not a URL with a scheme`,
      hint: 'shoutrrr style, e.g. slack://hook:…@webhook or generic+https://host/path',
    };
  }
  // The service's own parser: a malformed URL is a config error at start, not a failed send later.
  const [problem] = validateNotifyUrls([text]);
  return problem
    ? { message: problem.message, hint: problem.hint ?? 'see docs/notifications.md' }
    : undefined;
});

const templateShape = Object.fromEntries(
  EVENT_KINDS.map((kind) => [kind, template.optional()]),
) as Record<EventKind, z.ZodOptional<typeof template>>;

export const NotifySchema = z.strictObject({
  urls: z.array(notifyUrl).default([]),
  templates: z.strictObject(templateShape).default({}),
});
