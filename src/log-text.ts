/**
 * `log.format: text`: pino's JSON line, rewritten for a person reading a terminal or `kubectl logs`
 * (kured's default logs are text too). One event per line, time, level, who, message, then the
 * fields as key=value; an error's stack follows, indented. Redaction has happened before this sees
 * the line, and values are quoted as JSON whenever they hold anything but plain characters, so an
 * escape sequence from a node name or a reason is shown, never run by the terminal.
 */

/** pino's numeric levels. */
const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Said in the head of the line, not again as fields. */
const HEAD = new Set(['time', 'level', 'service', 'component', 'msg']);

const PLAIN = /^[\w.:/@+,%=-]+$/;

const quoted = (value: unknown): string => {
  if (typeof value === 'string') return PLAIN.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null)
    return String(value);
  return JSON.stringify(value);
};

/** A field as text, whatever pino put there (a string, a number, an object). */
const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

/** Text without control characters: JSON's escapes for those, the rest as it is. */
const readable = (text: string): string =>
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
  text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => JSON.stringify(c).slice(1, -1));

/** One pino JSON line as text (with its newline); a line that is not JSON passes unchanged. */
export function textLine(json: string): string {
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = LEVELS[Number(event['level'])] ?? String(event['level']);
  const who = [event['service'], event['component']].filter((part) => part !== undefined);
  const head = [
    typeof event['time'] === 'string' ? event['time'] : new Date().toISOString(),
    level.padEnd(5),
    `${who.map((part) => readable(asText(part))).join('/')}:`,
    readable(asText(event['msg'])),
  ];
  const fields: string[] = [];
  let stack: string | undefined;
  for (const [key, value] of Object.entries(event)) {
    if (HEAD.has(key)) continue;
    if (key === 'err' && typeof value === 'object' && value !== null) {
      const error = value as { message?: unknown; stack?: unknown };
      fields.push(`err=${quoted(asText(error.message))}`);
      if (typeof error.stack === 'string') stack = error.stack;
      continue;
    }
    fields.push(`${readable(key)}=${quoted(value)}`);
  }
  const line = [...head, ...fields].join(' ');
  const more = stack
    ? stack
        .split('\n')
        .slice(1)
        .map((frame) => `\n    ${readable(frame.trim())}`)
        .join('')
    : '';
  return `${line}${more}\n`;
}
