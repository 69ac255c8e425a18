/**
 * kured's window vocabulary (pkg/timewindow): weekdays as `su`/`sun`/`sunday` (any case) or `0`–`6`
 * (0 = Sunday, as kured; `7` is refused with a hint rather than guessed), and times of day as `15:04`,
 * `15:04:05`, `03:04pm`, `3:04pm`, `15`, `03pm`, `3pm` (am/pm in any case). Each parser returns the
 * value or a message that names the bad text and shows what would work.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const DAYS: Record<string, number> = {};
for (const [i, names] of [
  ['su', 'sun', 'sunday'],
  ['mo', 'mon', 'monday'],
  ['tu', 'tue', 'tuesday'],
  ['we', 'wed', 'wednesday'],
  ['th', 'thu', 'thursday'],
  ['fr', 'fri', 'friday'],
  ['sa', 'sat', 'saturday'],
].entries()) {
  for (const name of names) DAYS[name] = i;
}

export const DAY_ABBREVIATIONS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

/** One weekday, 0 = Sunday … 6 = Saturday. */
export function parseWeekday(value: string | number): Parsed<number> {
  const text = String(value).trim().toLowerCase();
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n <= 6) return { ok: true, value: n };
    return {
      ok: false,
      message: `weekday ${JSON.stringify(value)} is out of range: use 0-6 (0 = sunday, as kured) or a name like sun`,
    };
  }
  const day = DAYS[text];
  if (day !== undefined) return { ok: true, value: day };
  return {
    ok: false,
    message: `${JSON.stringify(value)} is not a weekday: use su/sun/sunday … sa/sat/saturday or 0-6 (0 = sunday)`,
  };
}

const CLOCK = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap]m)?$/i;
const CLOCK_HINT = 'use 15:04, 15:04:05, 3pm or 3:04pm';

/**
 * A time of day in seconds since local midnight. With `allowMidnightEnd`, `24:00` and kured's
 * end-of-day idiom `23:59:59` both mean the following midnight (86400), so `00:00`–`23:59:59` covers
 * the whole day and consecutive days merge into one open period.
 */
export function parseClock(text: string, allowMidnightEnd = false): Parsed<number> {
  const m = CLOCK.exec(text.trim());
  if (!m)
    return { ok: false, message: `${JSON.stringify(text)} is not a time of day: ${CLOCK_HINT}` };
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? 0);
  const second = Number(m[3] ?? 0);
  const meridiem = m[4]?.toLowerCase();
  if (m[3] !== undefined && m[2] === undefined) {
    return { ok: false, message: `${JSON.stringify(text)} is not a time of day: ${CLOCK_HINT}` };
  }
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) {
      return {
        ok: false,
        message: `${JSON.stringify(text)}: with am/pm the hour must be 1-12 (12am is midnight, 12pm noon)`,
      };
    }
    hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
  }
  if (minute > 59 || second > 59) {
    return { ok: false, message: `${JSON.stringify(text)}: minutes and seconds must be 00-59` };
  }
  const seconds = hour * 3600 + minute * 60 + second;
  if (hour === 24 && seconds === 86_400 && meridiem === undefined) {
    return allowMidnightEnd
      ? { ok: true, value: 86_400 }
      : {
          ok: false,
          message: `${JSON.stringify(text)}: 24:00 is only allowed as an end; start at 00:00`,
        };
  }
  if (hour > 23) return { ok: false, message: `${JSON.stringify(text)}: the hour must be 0-23` };
  if (allowMidnightEnd && seconds === 86_399) return { ok: true, value: 86_400 };
  return { ok: true, value: seconds };
}

/** `79200` → `22:00`, `3661` → `01:01:01`, `86400` → `24:00`. */
export function formatClock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const hm = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
  return s === 0 ? hm : `${hm}:${String(s).padStart(2, '0')}`;
}
