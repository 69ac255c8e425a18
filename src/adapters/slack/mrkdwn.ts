/**
 * mrkdwn escaping and the size limits of Block Kit text (reference §3): any text that came from
 * people or the cluster (node names, reasons) is escaped (core/markup.ts) before kubemaint adds its
 * own `<@U…>` mentions.
 */
export { escapeMrkdwn } from '../../core/markup.js';

/** A section's text may hold 3,000 characters; leave room for the "and N more" line. */
export const SECTION_LIMIT = 3000;

/**
 * Join lines into one section's worth of text, ending with "…and N more" when they do not all fit,
 * instead of an API error (`msg_too_long`) that would hide the whole answer.
 */
export function fitLines(lines: readonly string[], limit = SECTION_LIMIT): string {
  const out: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const more = `…and ${lines.length - i} more`;
    const cost = line.length + 1;
    if (used + cost + more.length + 1 > limit) {
      out.push(more);
      return out.join('\n');
    }
    out.push(line);
    used += cost;
  }
  return out.join('\n');
}
