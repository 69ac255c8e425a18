/**
 * Standard 5-field cron (`minute hour day-of-month month day-of-week`) for window openings, with the
 * Vixie-cron semantics people expect: `*`, numbers, ranges `1-5`, lists `1,15`, steps `*\/15`, `8-18/2`
 * and `5/15` (= `5-59/15`), month names `jan`…`dec`, day names `sun`…`sat`, `0` and `7` both Sunday,
 * `?` as `*` in the two day fields, and the macros `@yearly @annually @monthly @weekly @daily
 * @midnight @hourly`.
 *
 * Day-of-month and day-of-week combine with OR when both are restricted (neither starts with `*` or
 * `?`), as in Vixie cron and POSIX: `0 2 1-7 * 6` means "days 1-7 AND every Saturday", not "the first
 * Saturday". For monthly patterns use `#`: `0 2 * * 6#1` is the first Saturday, `sun#2` the second
 * Sunday (1-5). `L` and `W` are not supported and are refused with a hint.
 */
import { DAY_ABBREVIATIONS, type Parsed } from './window-clock.js';

export interface CronSchedule {
  source: string;
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  /** 0 = Sunday … 6 = Saturday. */
  daysOfWeek: ReadonlySet<number>;
  /** `6#1` entries: weekday and which one of the month (1-5). */
  nthWeekdays: readonly { weekday: number; nth: number }[];
  domRestricted: boolean;
  dowRestricted: boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** Value of the first name (months start at 1). */
  nameBase?: number;
}
const FIELDS: readonly FieldRule[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { name: 'day-of-week', min: 0, max: 7, names: DAY_ABBREVIATIONS, nameBase: 0 },
];

const FIELDS_HINT = 'five fields: minute hour day-of-month month day-of-week, e.g. "0 2 * * 6"';

export function parseCron(text: string): Parsed<CronSchedule> {
  const source = text.trim();
  const expanded = MACROS[source.toLowerCase()] ?? source;
  if (expanded.startsWith('@')) {
    return {
      ok: false,
      message: `cron macro ${JSON.stringify(source)} is not supported here: use ${Object.keys(MACROS).join(' ')} or ${FIELDS_HINT}`,
    };
  }
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5) {
    const extra = parts.length === 6 ? ' (a seconds or year field is not supported)' : '';
    return {
      ok: false,
      message: `cron ${JSON.stringify(source)} has ${parts.length} fields${extra}: use ${FIELDS_HINT}`,
    };
  }
  const sets: Set<number>[] = [];
  const nthWeekdays: { weekday: number; nth: number }[] = [];
  for (const [i, rule] of FIELDS.entries()) {
    const field = parts[i] ?? '';
    const parsed = parseField(
      field === '?' && i >= 2 ? '*' : field,
      rule,
      i === 4 ? nthWeekdays : undefined,
    );
    if (!parsed.ok)
      return { ok: false, message: `cron ${JSON.stringify(source)}: ${parsed.message}` };
    sets.push(parsed.value);
  }
  const [minutes, hours, daysOfMonth, months, dow] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  // 7 is Sunday too (cron dialects accept both).
  if (dow.delete(7)) dow.add(0);
  const starts = (p: string | undefined) => p !== undefined && (p.startsWith('*') || p === '?');
  return {
    ok: true,
    value: {
      source,
      minutes,
      hours,
      daysOfMonth,
      months,
      daysOfWeek: dow,
      nthWeekdays,
      domRestricted: !starts(parts[2]),
      dowRestricted: !starts(parts[4]),
    },
  };
}

function parseField(
  field: string,
  rule: FieldRule,
  nth: { weekday: number; nth: number }[] | undefined,
): Parsed<Set<number>> {
  const values = new Set<number>();
  for (const item of field.split(',')) {
    if (nth && item.includes('#')) {
      const [day, which] = item.split('#');
      const weekday = parseValue(day ?? '', rule);
      const n = Number(which);
      if (weekday === undefined || !/^[1-5]$/.test(which ?? '')) {
        return {
          ok: false,
          message: `${rule.name} ${JSON.stringify(item)}: write weekday#n with n 1-5, e.g. 6#1 (first Saturday)`,
        };
      }
      nth.push({ weekday: weekday % 7, nth: n });
      continue;
    }
    if (/[LW]/i.test(item) && !rule.names?.some((n) => item.toLowerCase().includes(n))) {
      return {
        ok: false,
        message: `${rule.name} ${JSON.stringify(item)}: L and W are not supported; for monthly windows use weekday#n in day-of-week, e.g. 6#1`,
      };
    }
    const m = /^(\*|[^/-]+)(?:-([^/]+))?(?:\/(.+))?$/.exec(item);
    if (!m)
      return {
        ok: false,
        message: `${rule.name} ${JSON.stringify(item)} is not a cron value: use *, n, a-b, a-b/step or */step`,
      };
    const [, head = '', tail, stepText] = m;
    if (head === '*' && tail !== undefined) {
      return {
        ok: false,
        message: `${rule.name} ${JSON.stringify(item)}: * cannot start a range; use * or a-b`,
      };
    }
    const step = stepText === undefined ? 1 : Number(stepText);
    if (
      !Number.isInteger(step) ||
      step < 1 ||
      (stepText !== undefined && !/^\d+$/.test(stepText))
    ) {
      return {
        ok: false,
        message: `${rule.name} ${JSON.stringify(item)}: the step must be a whole number of at least 1`,
      };
    }
    const lo = head === '*' ? rule.min : parseValue(head, rule);
    const hi =
      head === '*'
        ? rule.max
        : tail !== undefined
          ? parseValue(tail, rule)
          : stepText !== undefined
            ? rule.max
            : lo;
    if (lo === undefined || hi === undefined) {
      return {
        ok: false,
        message: `${rule.name} ${JSON.stringify(item)} is out of range: allowed ${rule.min}-${rule.max}${rule.names ? ` or ${rule.names[0]}…${rule.names.at(-1)}` : ''}`,
      };
    }
    if (lo > hi) {
      const split =
        rule.name === 'day-of-week' && hi === 0
          ? `${lo}-7 (7 is Sunday)`
          : `${lo}-${rule.max},${rule.min}-${hi}`;
      return {
        ok: false,
        message: `${rule.name} range ${JSON.stringify(item)} runs backwards: write it as ${split}`,
      };
    }
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { ok: true, value: values };
}

function parseValue(text: string, rule: FieldRule): number | undefined {
  const lower = text.toLowerCase();
  const named = rule.names?.indexOf(lower) ?? -1;
  if (named >= 0) return named + (rule.nameBase ?? 0);
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= rule.min && n <= rule.max ? n : undefined;
}

/** Whether the cron fires on a calendar day (month 1-12, weekday 0 = Sunday). */
export function cronMatchesDay(
  cron: CronSchedule,
  date: { month: number; day: number },
  weekday: number,
): boolean {
  if (!cron.months.has(date.month)) return false;
  const dom = cron.daysOfMonth.has(date.day);
  const dow =
    cron.daysOfWeek.has(weekday) ||
    cron.nthWeekdays.some((n) => n.weekday === weekday && Math.ceil(date.day / 7) === n.nth);
  if (cron.domRestricted && cron.dowRestricted) return dom || dow;
  if (cron.domRestricted) return dom;
  if (cron.dowRestricted) return dow;
  return true;
}

/** Every firing time of a matching day, in seconds since local midnight, ascending. */
export function cronTimesOfDay(cron: CronSchedule): number[] {
  const times: number[] = [];
  for (const h of [...cron.hours].sort((a, b) => a - b)) {
    for (const m of [...cron.minutes].sort((a, b) => a - b)) times.push(h * 3600 + m * 60);
  }
  return times;
}
