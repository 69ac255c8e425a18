/**
 * Alertmanager silences for a node in maintenance (`alertmanager.silences`): each entry is one
 * silence, written as amtool and Prometheus write label matchers (`node="<node>"`,
 * `instance=~"<node>:.*"`), where `<node>` becomes the node's name (regex-escaped inside `=~` and
 * `!~`). Alertmanager silences an alert only when every matcher of one silence matches, so matchers
 * that should each silence on their own go in separate entries. Pure: parsing and the silence's
 * shape; the adapter talks to Alertmanager.
 */
import { isActive, type MaintenanceRequest } from './request.js';

export const NODE_PLACEHOLDER = '<node>';

export interface Matcher {
  name: string;
  value: string;
  /** `=~` or `!~`. */
  isRegex: boolean;
  /** `=` or `=~` (false: `!=` or `!~`). */
  isEqual: boolean;
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const ONE = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(,|$)/;

/**
 * `{node="<node>", severity!="info"}` (braces optional) → matchers; an error names the part that is
 * not a matcher. Values are double-quoted, with `\"` and `\\` escapes, as in PromQL.
 */
export function parseMatchers(
  text: string,
): { ok: true; matchers: Matcher[] } | { ok: false; error: string } {
  let rest = text.trim();
  if (rest.startsWith('{') && rest.endsWith('}')) rest = rest.slice(1, -1);
  const matchers: Matcher[] = [];
  while (rest.trim() !== '') {
    const match = ONE.exec(rest);
    if (!match) {
      return {
        ok: false,
        error: `"${rest.trim()}" is not a matcher like name="value", name!="value", name=~"regex" or name!~"regex"`,
      };
    }
    const [whole, name = '', op = '=', quoted = ''] = match;
    matchers.push({
      name,
      value: quoted.replace(/\\(.)/g, '$1'),
      isRegex: op === '=~' || op === '!~',
      isEqual: op === '=' || op === '=~',
    });
    rest = rest.slice(whole.length);
    if (match[4] === ',' && rest.trim() === '') return { ok: false, error: 'a trailing comma' };
  }
  if (matchers.length === 0) return { ok: false, error: 'no matchers' };
  return { ok: true, matchers };
}

/**
 * Why these matchers cannot be one node's silence, or undefined: one of the equality matchers must
 * name the node, or the silence would quiet the whole fleet's alerts.
 */
export function nodeSilenceProblem(matchers: readonly Matcher[]): string | undefined {
  const naming = matchers.some((m) => m.isEqual && m.value.includes(NODE_PLACEHOLDER));
  if (!naming)
    return `no matcher names the node: one with = or =~ must contain ${NODE_PLACEHOLDER}, or the silence would quiet every node's alerts`;
  const bad = matchers.find((m) => !LABEL_NAME.test(m.name));
  return bad ? `"${bad.name}" is not a label name` : undefined;
}

/** The matchers for `node`: `<node>` replaced, escaped as a regular expression where it is one. */
export function matchersFor(template: readonly Matcher[], node: string): Matcher[] {
  const literal = node.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return template.map((m) => ({
    ...m,
    value: m.value.split(NODE_PLACEHOLDER).join(m.isRegex ? literal : node),
  }));
}

/** `node="a", instance=~"a:.*"`, as amtool shows a silence. */
export function formatMatchers(matchers: readonly Matcher[]): string {
  return matchers
    .map((m) => {
      const op = m.isRegex ? (m.isEqual ? '=~' : '!~') : m.isEqual ? '=' : '!=';
      return `${m.name}${op}"${m.value.replace(/[\\"]/g, '\\$&')}"`;
    })
    .join(', ');
}

/** Who created kubemaint's silences in this cluster: how it finds its own again. */
export const silenceAuthor = (cluster: string): string => `kubemaint@${cluster}`;

/** The comment people see in Alertmanager's UI and amtool. */
export const silenceComment = (request: { id: string; node: string; action: string }): string =>
  `kubemaint: ${request.action} of ${request.node} (request ${request.id}); expires when the node is back`;

/**
 * The silences a write ends: those `after` holds once it ended (a final state) or its node was
 * proven back, when `before` had not yet. Their alerts matter again from that moment.
 */
export function silencesEndedBy(
  before: Pick<MaintenanceRequest, 'state' | 'proven'> | undefined,
  after: Pick<MaintenanceRequest, 'state' | 'proven' | 'silences'>,
): string[] {
  const over = (r: Pick<MaintenanceRequest, 'state' | 'proven'>) =>
    !isActive(r.state) || r.proven !== undefined;
  if (!after.silences || !over(after) || (before && over(before))) return [];
  return after.silences.ids;
}
