/**
 * Text from the cluster or from people, made safe to print on a terminal: node names, reasons,
 * annotations and Slack-typed text may carry escape sequences (`\x1b]0;title\x07` retitles the
 * window, `\x1b[2J` clears it, a C1 `\x9b` is a CSI by itself) or bidi overrides that reorder what a
 * person reads. Every such character is shown as its JSON escape (`\u001b`), so nothing reaches the
 * terminal as a control and nothing is lost: JSON output passed through stays the same JSON.
 */

/** C0 and C1 controls, DEL, line/paragraph separators and the bidi embeddings, overrides, isolates. */
// eslint-disable-next-line no-control-regex -- matching control characters is this module's job
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const shown = (c: string): string =>
  SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` with every control character shown visibly. `lines: 'many'` keeps line feeds and tabs
 * (messages, JSON); the default `'one'` shows them too, for a value inside one line (a table cell,
 * a console event), where a line feed would forge a line of its own.
 */
export function printable(text: string, lines: 'one' | 'many' = 'one'): string {
  return text.replace(CONTROLS, (c) =>
    lines === 'many' && (c === '\n' || c === '\t') ? c : shown(c),
  );
}
