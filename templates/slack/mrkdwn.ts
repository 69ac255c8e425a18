/**
 * Text helpers for Block Kit: mrkdwn escaping (core/markup.ts, the one escape of Slack text) and the
 * clipping that keeps every field inside Slack's limits, so a long node list or a huge failure
 * message becomes "… and N more" instead of an `invalid_blocks` error that loses the whole prompt.
 */
import { DateTime } from 'luxon';
import { escapeMrkdwn } from '../../src/core/markup.js';

export const LIMITS = {
  blocks: 50,
  modalBlocks: 100,
  section: 3000,
  field: 2000,
  header: 150,
  buttonText: 75,
  buttonValue: 2000,
  contextElements: 10,
  actions: 25,
  fallbackText: 3000,
  modalTitle: 24,
  privateMetadata: 3000,
  /** Total text of a message's blocks; Slack refuses about 12k (msg_blocks_too_long). */
  messageText: 11000,
} as const;

/** Escape one interpolated value for mrkdwn: the short name the Slack templates use. */
export const esc = escapeMrkdwn;

/** Inline code for an identifier; backticks inside would end the span, so they become quotes. */
export const code = (value: string): string => `\`${esc(value.replace(/`/g, "'"))}\``;

/**
 * Clip to `max` UTF-16 units (Slack counts them so), never splitting a surrogate pair or an entity
 * made by `esc`, and mark the cut with an ellipsis.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  const amp = text.lastIndexOf('&', cut - 1);
  if (amp >= 0 && amp > cut - 5 && !text.slice(amp, cut).includes(';')) cut = amp;
  return `${text.slice(0, cut)}…`;
}

/**
 * Join lines until `max` would be passed; the rest is counted in "… and N <noun>". The first line is
 * clipped rather than dropped, so a single giant value still shows its start.
 */
export function fitLines(lines: readonly string[], max: number, noun = 'more'): string {
  const out: string[] = [];
  let used = 0;
  for (const [i, raw] of lines.entries()) {
    const rest = lines.length - i - 1;
    const tail = rest > 0 ? `\n… and ${rest} ${noun}`.length : 0;
    const room = max - used - (out.length > 0 ? 1 : 0) - tail;
    if (out.length === 0) {
      out.push(clip(raw, Math.max(room, 1)));
    } else if (raw.length > room) {
      out.push(`… and ${lines.length - i} ${noun}`);
      break;
    } else {
      out.push(raw);
    }
    used += out.at(-1)!.length + (out.length > 1 ? 1 : 0);
  }
  return clip(out.join('\n'), max);
}

/** "Sat 22 Nov 02:00 UTC (3 hours ago)": absolute in the configured zone, plus how far from now. */
export function when(iso: string, now: Date, zone: string): string {
  const at = DateTime.fromISO(iso, { zone }).setLocale('en');
  if (!at.isValid) return esc(iso);
  const rel = at.toRelative({
    base: DateTime.fromJSDate(now, { zone }),
    style: 'long',
    locale: 'en',
  });
  return `${at.toFormat('ccc d LLL HH:mm ZZZZ')}${rel ? ` (${rel})` : ''}`;
}
