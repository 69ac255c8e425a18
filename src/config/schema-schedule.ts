/**
 * `windows:` and `freezes:` — maintenance windows (kured-style weekly, or a cron start plus a
 * duration) and freezes (date ranges that win over windows). zod checks the shape here; what the
 * values mean (day names, times, cron, zones, DST) is decided by src/core/windows.ts, whose
 * `compileSchedule` runs on each entry so that every bad entry is reported, not only the first.
 */
import { z } from 'zod';
import {
  compileSchedule,
  type FreezeSpec,
  type ScheduleIssue,
  type ScheduleSpec,
  type WindowSpec,
} from '../core/windows.js';
import { maskSecrets } from './secrets.js';

export type { FreezeSpec, WindowSpec };

type Ctx = z.core.$RefinementCtx;

const text = z.union([z.string(), z.number()]).transform(String);

const WEEKLY_KEYS = ['days', 'start', 'end'] as const;

/**
 * Reports compileSchedule's issues for one entry at paths relative to it. Its messages end in how
 * to fix it (`…: use 15:04, 3pm`), which becomes the hint.
 */
function reportCompileIssues(spec: ScheduleSpec, ctx: Ctx): void {
  const result = compileSchedule(spec);
  if (result.ok) return;
  for (const issue of result.errors) addScheduleIssue(issue, ctx);
}

function addScheduleIssue(issue: ScheduleIssue, ctx: Ctx): void {
  const path = issue.segments.slice(2);
  let message = maskSecrets(issue.message);
  let hint: string | undefined;
  const split = /^(.+?): ((?:use|name|put|list|write|for) .+)$/.exec(message);
  if (split?.[1] !== undefined && split[2] !== undefined) [, message, hint] = split;
  // `"25:00": the hour must be 0-23` reads better as "not a time", with the formats as the hint.
  const field = path.at(-1);
  const bare = /^("[^"]*"): (.+)$/.exec(message);
  if ((field === 'start' || field === 'end') && bare !== null) {
    message = `${bare[1]} is not a time (${bare[2]})`;
    hint ??= 'use 24h "22:00" or "10pm"';
  }
  ctx.addIssue({
    code: 'custom',
    path,
    message,
    ...(hint === undefined ? {} : { params: { hint } }),
  });
}

export const WindowSchema = z
  .strictObject({
    days: z
      .union([z.string().transform((s) => [s]), z.array(z.union([z.string(), z.number()]))])
      .optional(),
    start: text.optional(),
    end: text.optional(),
    cron: z.string().optional(),
    duration: z.union([z.string(), z.number().transform((seconds) => `${seconds}s`)]).optional(),
    timezone: z.string().default('UTC'),
  })
  .superRefine((w, ctx) => {
    const need = (key: string, message: string, hint: string) =>
      ctx.addIssue({ code: 'custom', path: [key], message, params: { hint } });
    if (w.cron !== undefined) {
      for (const key of WEEKLY_KEYS) {
        if (w[key] !== undefined) {
          need(
            key,
            'does not go with cron',
            'a window is weekly (days, start, end) or cron + duration',
          );
        }
      }
      if (w.duration === undefined) need('duration', 'is required with cron', 'e.g. duration: 4h');
    } else {
      if (w.duration !== undefined)
        need('duration', 'only goes with cron', 'weekly windows close at `end`');
      if (w.days === undefined)
        need('days', 'is required', 'e.g. days: [sat, sun] (or give cron + duration)');
      if (w.start === undefined) need('start', 'is required', 'e.g. start: "22:00"');
      if (w.end === undefined)
        need('end', 'is required', 'e.g. end: "05:00"; before the start wraps past midnight');
    }
    if (!hasShapeIssue(w)) reportCompileIssues({ windows: [toWindowSpec(w)] }, ctx);
  })
  .transform(toWindowSpec);

type WindowInput = {
  days?: (string | number)[] | undefined;
  start?: string | undefined;
  end?: string | undefined;
  cron?: string | undefined;
  duration?: string | undefined;
  timezone: string;
};

function hasShapeIssue(w: WindowInput): boolean {
  if (w.cron !== undefined)
    return w.duration === undefined || WEEKLY_KEYS.some((k) => w[k] !== undefined);
  return w.duration !== undefined || WEEKLY_KEYS.some((k) => w[k] === undefined);
}

function toWindowSpec(w: WindowInput): WindowSpec {
  if (w.cron !== undefined)
    return { cron: w.cron, duration: w.duration ?? '', timezone: w.timezone };
  return { days: w.days ?? [], start: w.start ?? '', end: w.end ?? '', timezone: w.timezone };
}

/** `{ from, to, timezone?, reason? }`: dates (`2026-12-20`, `to` inclusive) or date-times. */
export const FreezeSchema = z
  .strictObject({
    from: z.string(),
    to: z.string(),
    timezone: z.string().optional(),
    reason: z.string().optional(),
  })
  .superRefine((freeze, ctx) => reportCompileIssues({ freezes: [freeze] }, ctx));
