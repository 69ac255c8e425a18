/**
 * The one line people ask for before anything else ("can it reboot now, and if not, when?"): open
 * until when, closed until when, or frozen and why. Shared by `/maint windows` and `kubemaint
 * windows`, so both say the same thing in the same words.
 */
import { DateTime } from 'luxon';
import { formatDuration } from './duration.js';
import { activeFreeze, closesAt, isOpen, nextOpening, type Schedule } from './windows.js';

const when = (at: DateTime, now: DateTime): string =>
  `${at.setLocale('en').toFormat('ccc yyyy-LL-dd HH:mm')} ${at.zoneName ?? 'UTC'} (in ${formatDuration(roundToMinute(at.toMillis() - now.toMillis()))})`;

// Minutes are what a person plans with; seconds would change on every look.
const roundToMinute = (ms: number): number => Math.max(60_000, Math.round(ms / 60_000) * 60_000);

export function windowStatusLine(schedule: Schedule, now: Date, zone: string): string {
  const at = DateTime.fromJSDate(now, { zone });
  const freeze = activeFreeze(schedule, at);
  const next = nextOpening(schedule, at);
  const reopens = next
    ? `next opens ${when(next, at)}`
    : 'no opening in the next 10 years: check the windows and freezes';
  if (freeze) {
    const why = freeze.reason ? `: ${freeze.reason}` : '';
    return `frozen${why} (until ${when(freeze.until, at)}); ${reopens}`;
  }
  if (isOpen(schedule, at)) {
    const closes = closesAt(schedule, at);
    if (closes === 'never' || closes === undefined)
      return schedule.windows.length === 0
        ? 'open now: no windows are configured, so always open'
        : 'open now, and every day is a window day';
    const cause = schedule.frozen.some((f) => f.start === closes.toMillis())
      ? ' (a freeze starts)'
      : '';
    return `open now, closes ${when(closes, at)}${cause}`;
  }
  return `closed now; ${reopens}`;
}
