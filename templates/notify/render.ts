/**
 * Message templates for notifications: `{{node}}` style named placeholders, `{{#reason}}…{{/reason}}`
 * sections shown only when the value is set, and kured's `%s` (the node name, `%%` is a percent sign).
 * Templates are parsed once when the config loads, so a typo is a config error at start instead of
 * a broken message in the middle of a maintenance. Rendering escapes each value for the service it
 * goes to (the template's own text is the config author's, sent as written).
 */
import { formatDuration } from '../../src/core/duration.js';
import type { MaintenanceEvent } from '../../src/core/events.js';
import { KubemaintError } from '../../src/errors.js';

/** Every name a template may use, and where its value comes from. */
export const PLACEHOLDERS = {
  node: (e: MaintenanceEvent) => e.node,
  cluster: (e: MaintenanceEvent) => e.cluster,
  event: (e: MaintenanceEvent) => e.kind,
  /** The same as `event`, under the field's own name. */
  kind: (e: MaintenanceEvent) => e.kind,
  action: (e: MaintenanceEvent) => e.action,
  requestId: (e: MaintenanceEvent) => e.requestId,
  reason: (e: MaintenanceEvent) => e.reason,
  approver: (e: MaintenanceEvent) => e.approver,
  duration: (e: MaintenanceEvent) =>
    e.durationMs === undefined ? undefined : formatDuration(e.durationMs),
  detail: (e: MaintenanceEvent) => e.detail,
  version: (e: MaintenanceEvent) => e.targetVersion,
  /** The same as `version`, under the field's own name. */
  targetVersion: (e: MaintenanceEvent) => e.targetVersion,
  at: (e: MaintenanceEvent) => e.at,
} as const satisfies Record<string, (e: MaintenanceEvent) => string | undefined>;

export type Placeholder = keyof typeof PLACEHOLDERS;

type Part =
  | { kind: 'text'; text: string }
  | { kind: 'value'; name: Placeholder }
  | { kind: 'section'; name: Placeholder; parts: Part[] };

export interface Template {
  readonly source: string;
  readonly parts: readonly Part[];
}

// `{{ name }}`, `{{#name}}`, `{{/name}}`; kured's `%s` and Go's `%%`.
const TOKEN = /\{\{\s*([#/]?)\s*([^{}]*?)\s*\}\}|%s|%%/g;

const isPlaceholder = (name: string): name is Placeholder => Object.hasOwn(PLACEHOLDERS, name);

const known = Object.keys(PLACEHOLDERS)
  .map((n) => `{{${n}}}`)
  .join(', ');

/** Every problem in `source`, as sentences; empty when the template is fine. */
export function templateProblems(source: string): string[] {
  return compile(source).problems;
}

/** Parse a template; a config error names each unknown placeholder or unclosed section. */
export function parseTemplate(source: string, where = 'template'): Template {
  const { template, problems } = compile(source);
  if (problems.length > 0) {
    throw new KubemaintError('config_invalid', `${where}: ${problems.join('; ')}`, {
      hint: `placeholders are ${known}; kured's %s stands for the node name`,
    });
  }
  return template;
}

/** `escape` is applied to every value (core/markup.ts `escaperFor`); the default leaves them as is. */
export function renderTemplate(
  template: Template,
  event: MaintenanceEvent,
  escape: (value: string) => string = (value) => value,
): string {
  return renderParts(template.parts, event, escape);
}

function renderParts(
  parts: readonly Part[],
  event: MaintenanceEvent,
  escape: (value: string) => string,
): string {
  let out = '';
  for (const part of parts) {
    if (part.kind === 'text') out += part.text;
    else if (part.kind === 'value') out += escape(PLACEHOLDERS[part.name](event) ?? '');
    else if (isSet(PLACEHOLDERS[part.name](event))) out += renderParts(part.parts, event, escape);
  }
  return out;
}

const isSet = (value: string | undefined): boolean => value !== undefined && value !== '';

function compile(source: string): { template: Template; problems: string[] } {
  const problems: string[] = [];
  const root: Part[] = [];
  const stack: { name: string; parts: Part[] }[] = [{ name: '', parts: root }];
  const top = () => stack[stack.length - 1]!.parts;
  let last = 0;
  for (const match of source.matchAll(TOKEN)) {
    if (match.index > last) top().push({ kind: 'text', text: source.slice(last, match.index) });
    last = match.index + match[0].length;
    if (match[0] === '%s') {
      top().push({ kind: 'value', name: 'node' });
      continue;
    }
    if (match[0] === '%%') {
      top().push({ kind: 'text', text: '%' });
      continue;
    }
    const [, sigil = '', name = ''] = match;
    if (!isPlaceholder(name)) {
      problems.push(`unknown placeholder {{${sigil}${name}}}`);
      continue;
    }
    if (sigil === '#') {
      const section: Part = { kind: 'section', name, parts: [] };
      top().push(section);
      stack.push({ name, parts: section.parts });
    } else if (sigil === '/') {
      const open = stack[stack.length - 1]!.name;
      if (stack.length === 1) problems.push(`{{/${name}}} closes a section that is not open`);
      else if (open !== name) problems.push(`{{/${name}}} comes before the inner {{/${open}}}`);
      else stack.pop();
    } else top().push({ kind: 'value', name });
  }
  if (last < source.length) top().push({ kind: 'text', text: source.slice(last) });
  for (const open of stack.slice(1)) problems.push(`{{#${open.name}}} is never closed`);
  return { template: { source, parts: root }, problems };
}
