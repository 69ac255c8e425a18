/**
 * Field types shared by the config sections: each checks one kind of value (duration, label
 * selector, version, cron, URL, Slack ID, …) and reports a problem that says what is wrong and
 * how to write it instead, echoing the value only through `describeValue` (which masks secrets).
 */
import { isIP } from 'node:net';
import cron from 'node-cron';
import { z } from 'zod';
import { formatDuration, parseDuration } from '../core/duration.js';
import { parseSelector } from '@kubemaint/label-selector';
import { maskSecrets } from './secrets.js';

type Ctx = z.core.$RefinementCtx;
/** What a check says about a bad value: the message, and a hint on how to write it instead. */
type Complaint = { message: string; hint?: string } | undefined;

/** A value as a message may quote it: strings quoted, masked and cut short; other types named. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    const masked = maskSecrets(value);
    return JSON.stringify(masked.length > 60 ? `${masked.slice(0, 57)}...` : masked);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  return 'a map of keys';
}

function complain(ctx: Ctx, complaint: NonNullable<Complaint>): typeof z.NEVER {
  ctx.addIssue({
    code: 'custom',
    message: complaint.message,
    ...(complaint.hint === undefined ? {} : { params: { hint: complaint.hint } }),
  });
  return z.NEVER;
}

/** A string checked by `check`, which returns a complaint or undefined. */
export function checkedText(check: (text: string) => Complaint) {
  return z.string().superRefine((text, ctx) => {
    const complaint = check(text);
    if (complaint !== undefined) complain(ctx, complaint);
  });
}

/**
 * Inverse of a field's transform, so the parsed config can be written back as a file
 * (`config print-defaults`). Looked up by schema object.
 */
export const TO_FILE = new WeakMap<z.ZodType, (value: never) => unknown>();

/** `15m`, `1h30m`, `90s` or a number of seconds → milliseconds. */
export function duration() {
  const schema = z.unknown().transform((value, ctx) => {
    const ms =
      typeof value === 'string' || typeof value === 'number' ? parseDuration(value) : undefined;
    if (ms === undefined) {
      return complain(ctx, {
        message: `${describeValue(value)} is not a duration`,
        hint: 'use 15m, 1h30m, 90s',
      });
    }
    return ms;
  });
  TO_FILE.set(schema, (ms: number) => (ms === 0 ? '0s' : formatDuration(ms)));
  return schema;
}

export const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** An address to listen on: an IP literal (`127.0.0.1`, `0.0.0.0`, `::1`, `::`) or `localhost`. */
export const isListenHost = (text: string): boolean => text === 'localhost' || isIP(text) !== 0;

export const LISTEN_HOST_HINT =
  '127.0.0.1 (this machine only), 0.0.0.0 (every interface) or an address of this machine; ' +
  'IPv6 without brackets, e.g. ::1';

export const listenHost = () =>
  checkedText((text) =>
    isListenHost(text)
      ? undefined
      : {
          message: `${describeValue(text)} is not an address to listen on`,
          hint: LISTEN_HOST_HINT,
        },
  );

export const labelSelector = () =>
  checkedText((text) => {
    const parsed = parseSelector(text);
    return parsed.ok
      ? undefined
      : {
          message: `is not a label selector: ${maskSecrets(parsed.error)}`,
          hint: 'write it like kubectl -l: app=backup,tier!=db or env in (dev,qa)',
        };
  });

/** A label key on its own (`node.kubernetes.io/pool`): a selector that is exactly one "exists". */
export function isLabelKey(text: string): boolean {
  const parsed = parseSelector(text);
  const only = parsed.ok && parsed.selector.length === 1 ? parsed.selector[0] : undefined;
  return only?.operator === 'exists' && only.key === text;
}

export const labelKey = () =>
  checkedText((text) =>
    isLabelKey(text)
      ? undefined
      : {
          message: `${describeValue(text)} is not a label key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.'`,
          hint: 'e.g. node.kubernetes.io/pool',
        },
  );

/** A label value (may be empty): what `k=<value>` accepts. */
export function isLabelValue(text: string): boolean {
  return text === '' || (!/[\s,()=!]/.test(text) && parseSelector(`k=${text}`).ok);
}

const VERSION = /^v?\d+\.\d+\.\d+$/;

/** A strict kubelet version, `v1.31.4` or `1.31.4` (DESIGN §5 invariant 3). */
export const isVersion = (text: string): boolean => VERSION.test(text);

export const cronExpression = () =>
  checkedText((text) => {
    if (cron.validate(text)) return undefined;
    const detail = cron.validateDetailed(text).errors[0]?.message;
    return {
      message: `${describeValue(text)} is not a cron expression${detail ? ` (${detail})` : ''}`,
      hint: 'five fields "minute hour day-of-month month day-of-week", e.g. "0 3 * * 1-5"',
    };
  });

/** An http(s) URL; messages show only its scheme and host (URLs may carry credentials). */
export const httpUrl = () =>
  checkedText((text) => {
    try {
      const url = new URL(text);
      if (url.protocol === 'http:' || url.protocol === 'https:') return undefined;
    } catch {
      // fall through to the complaint
    }
    return { message: 'is not an http(s) URL', hint: 'e.g. http://prometheus.monitoring:9090' };
  });

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A Kubernetes object name of the DNS-1123 label kind (namespaces, service accounts). */
export const dnsLabel = (example: string) =>
  checkedText((text) =>
    DNS_LABEL.test(text)
      ? undefined
      : {
          message: `${describeValue(text)} is not a valid name: lowercase letters, digits and '-', at most 63`,
          hint: `e.g. ${example}`,
        },
  );

/** A Slack ID such as a user `U0123ABC` or channel `C0123ABCD`; names like `#ops` are not IDs. */
export const slackId = (what: string, prefixes: string, example: string) =>
  checkedText((text) =>
    new RegExp(`^[${prefixes}][A-Z0-9]{2,}$`).test(text)
      ? undefined
      : {
          message: `${describeValue(text)} is not a Slack ${what} ID`,
          hint: `use the ID (like ${example}), not the name; Slack shows it under "Copy ID"`,
        },
  );

export const regexpSource = () =>
  checkedText((text) => {
    try {
      new RegExp(text);
      return undefined;
    } catch (error) {
      const reason =
        error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : '';
      return {
        message: `is not a regular expression: ${reason}`,
        hint: 'e.g. ^(Watchdog|InfoInhibitor)$',
      };
    }
  });
