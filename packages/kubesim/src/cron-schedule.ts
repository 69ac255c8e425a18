/**
 * CronJob schedules as the CronJob controller reads them (robfig/cron's standard parser): five fields
 * (minute, hour, day of month, month, day of week) with `*`, `?`, lists, ranges, steps and month and
 * weekday names, or a macro (`@hourly`, `@daily`, …). Day of month and day of week both restricted
 * means either may match, as in Vixie cron. Times are read on the wall clock of `timeZone` (UTC when
 * absent: the sim's controller manager runs in UTC).
 */

export interface CronSchedule {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** Day of month or day of week was `*`/`?` (then the other alone decides). */
  anyDay: boolean;
  anyWeekday: boolean;
}

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldRule {
  min: number;
  max: number;
  names?: readonly string[];
  /** The first name's number (1 for months, 0 for weekdays). */
  nameBase?: number;
}
const FIELDS: readonly FieldRule[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { min: 0, max: 6, names: WEEKDAYS, nameBase: 0 },
];

function value(text: string, rule: FieldRule): number {
  const named = rule.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + (rule.nameBase ?? 0);
  if (!/^\d+$/.test(text)) {
    throw new Error(
      `failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`,
    );
  }
  return Number(text);
}

function parseField(text: string, rule: FieldRule): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [range = '', stepText] = part.split('/');
    let [from, to] = [rule.min, rule.max];
    if (range !== '*' && range !== '?') {
      const [a = '', b] = range.split('-');
      from = value(a, rule);
      to = b === undefined ? (stepText === undefined ? from : rule.max) : value(b, rule);
    }
    const step = stepText === undefined ? 1 : value(stepText, { min: 1, max: rule.max });
    if (from < rule.min)
      throw new Error(`beginning of range (${from}) below minimum (${rule.min}): ${part}`);
    if (to > rule.max) throw new Error(`end of range (${to}) above maximum (${rule.max}): ${part}`);
    if (from > to)
      throw new Error(`beginning of range (${from}) beyond end of range (${to}): ${part}`);
    if (step < 1) throw new Error(`step of range should be a positive number: ${part}`);
    for (let n = from; n <= to; n += step) out.add(n);
  }
  return out;
}

/** The schedule, or the parser's complaint (the apiserver's 422 quotes it). */
export function parseCronSchedule(source: string): CronSchedule | { error: string } {
  const text = MACROS[source.trim()] ?? source.trim();
  const fields = text.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) {
    return { error: `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]` };
  }
  try {
    const [minutes, hours, days, months, weekdays] = fields.map((f, i) =>
      parseField(f, FIELDS[i] as FieldRule),
    ) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
    const starred = (f: string) => f.startsWith('*') || f.startsWith('?');
    return {
      minutes,
      hours,
      days,
      months,
      weekdays,
      anyDay: starred(fields[2] ?? ''),
      anyWeekday: starred(fields[4] ?? ''),
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

interface Wall {
  month: number;
  day: number;
  weekday: number;
  hour: number;
  minute: number;
}

function wallClock(zone: string | undefined): (t: number) => Wall {
  if (!zone || zone === 'UTC' || zone === 'Etc/UTC') {
    return (t) => {
      const d = new Date(t);
      return {
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        weekday: d.getUTCDay(),
        hour: d.getUTCHours(),
        minute: d.getUTCMinutes(),
      };
    };
  }
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    month: 'numeric',
    day: 'numeric',
    weekday: 'short',
    hour: 'numeric',
    minute: 'numeric',
  });
  return (t) => {
    const parts = Object.fromEntries(format.formatToParts(t).map((p) => [p.type, p.value]));
    return {
      month: Number(parts['month']),
      day: Number(parts['day']),
      weekday: WEEKDAYS.indexOf(String(parts['weekday']).toLowerCase()),
      hour: Number(parts['hour']),
      minute: Number(parts['minute']),
    };
  };
}

const MINUTE = 60_000;
/** Far enough for `0 0 29 2 *`; robfig/cron also gives up after five years. */
const HORIZON = 5 * 366 * 24 * 60 * MINUTE;

/** The first time after `after` (ms) that the schedule fires, in ms; undefined if none within 5 years. */
export function nextCronTime(
  schedule: CronSchedule,
  after: number,
  zone?: string,
): number | undefined {
  const wall = wallClock(zone);
  const utc = !zone || zone === 'UTC' || zone === 'Etc/UTC';
  const dayMatches = (w: Wall) => {
    const byDay = schedule.days.has(w.day);
    const byWeekday = schedule.weekdays.has(w.weekday);
    if (schedule.anyDay || schedule.anyWeekday) return byDay && byWeekday;
    return byDay || byWeekday;
  };
  let t = Math.floor(after / MINUTE) * MINUTE + MINUTE;
  const end = after + HORIZON;
  while (t <= end) {
    const w = wall(t);
    // Skips are in wall minutes to the next boundary; zones are whole minutes off UTC. In a zone, a
    // day is skipped an hour at a time: a day with a DST change is not 24 hours long.
    if (!schedule.months.has(w.month) || !dayMatches(w)) {
      t += ((utc ? (23 - w.hour) * 60 : 0) + (60 - w.minute)) * MINUTE;
    } else if (!schedule.hours.has(w.hour)) t += (60 - w.minute) * MINUTE;
    else if (!schedule.minutes.has(w.minute)) t += MINUTE;
    else return t;
  }
  return undefined;
}
