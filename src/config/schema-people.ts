/**
 * Who is asked and told: `approval` (who may approve, the two-person rule, expiry, auto-approval
 * by node selector), `slack` (the channel and slash command; the tokens come from the environment)
 * and `notify` (shoutrrr-style URLs and per-event message templates).
 */
import { z } from 'zod';
import { EVENT_KINDS, type EventKind } from '../core/events.js';
import { checkedText, duration, labelSelector, slackId } from './fields.js';
import { validateNotifyUrls } from '../adapters/notify/parse.js';
import { redactUrl } from './secrets.js';
import { suggestionHint } from './suggest.js';

const CLI_USER = /^[a-z_][a-z0-9_.-]*\$?$/;

const cliUsers = z
  .array(
    checkedText((text) =>
      text === '*' || CLI_USER.test(text)
        ? undefined
        : {
            message: `"${text}" is not a local user name`,
            hint: 'e.g. alice, or "*" for any local user',
          },
    ),
  )
  .superRefine((users, ctx) => {
    if (users.includes('*') && users.length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: '"*" already allows every local user, so the other names mean nothing',
        params: { hint: 'keep either "*" or the list of names' },
      });
    }
  });

export const ApprovalSchema = z.strictObject({
  approvers: z
    .strictObject({
      users: z.array(slackId('user', 'UW', 'U0123ABC')).default([]),
      groups: z.array(slackId('user group', 'S', 'S0123ABC')).default([]),
      cli: cliUsers.default([]),
    })
    .prefault({}),
  twoPerson: z.boolean().default(false),
  expiry: duration().default(72 * 3_600_000),
  autoApprove: z.strictObject({ nodeSelector: labelSelector() }).optional(),
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
