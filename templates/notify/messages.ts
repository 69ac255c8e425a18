/**
 * The message one event sends: the configured (or default) template per event kind, rendered with
 * the event's values. `compileMessageTemplates` runs at start so every template error surfaces then;
 * `notificationMessage` is what the notifier calls per event.
 */
import {
  EVENT_KINDS,
  isEventKind,
  type EventKind,
  type MaintenanceEvent,
} from '../../src/core/events.js';
import { escaperFor, type Markup } from '../../src/core/markup.js';
import { KubemaintError } from '../../src/errors.js';
import { DEFAULT_TEMPLATES, DEFAULT_TITLE } from './defaults.js';
import { parseTemplate, renderTemplate, templateProblems, type Template } from './render.js';

/** What config may set: a template per event kind, and the title template. */
export interface MessageTemplateConfig {
  templates?: Partial<Record<string, string>>;
  title?: string;
}

export interface MessageTemplates {
  readonly byKind: Readonly<Record<EventKind, Template>>;
  readonly title: Template;
}

export interface NotificationMessage {
  title: string;
  text: string;
}

/** Problems with paths relative to the `notify` config block, for the config loader. */
export function messageTemplateProblems(
  config: MessageTemplateConfig,
): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  for (const [kind, source] of Object.entries(config.templates ?? {})) {
    const path = `templates.${kind}`;
    if (!isEventKind(kind)) {
      problems.push({ path, message: `unknown event — use one of ${EVENT_KINDS.join(', ')}` });
    } else if (source !== undefined) {
      for (const message of templateProblems(source)) problems.push({ path, message });
    }
  }
  if (config.title !== undefined) {
    for (const message of templateProblems(config.title)) problems.push({ path: 'title', message });
  }
  return problems;
}

/** Parse the configured templates over the defaults; throws a config error listing every problem. */
export function compileMessageTemplates(config: MessageTemplateConfig = {}): MessageTemplates {
  const problems = messageTemplateProblems(config);
  if (problems.length > 0) {
    const list = problems.map((p) => `notify.${p.path}: ${p.message}`).join('\n  ');
    throw new KubemaintError('config_invalid', `notification templates are invalid:\n  ${list}`, {
      hint: 'placeholders look like {{node}}; see docs/notifications.md for the list',
    });
  }
  const byKind = {} as Record<EventKind, Template>;
  for (const kind of EVENT_KINDS) {
    const source = config.templates?.[kind] ?? DEFAULT_TEMPLATES[kind];
    byKind[kind] = parseTemplate(source, `notify.templates.${kind}`);
  }
  return { byKind, title: parseTemplate(config.title ?? DEFAULT_TITLE, 'notify.title') };
}

/** How the receiving service reads the text and the title: each value is escaped for it. */
export interface MessageMarkup {
  text: Markup;
  title: Markup;
}

export function notificationMessage(
  templates: MessageTemplates,
  event: MaintenanceEvent,
  markup: MessageMarkup = { text: 'plain', title: 'plain' },
): NotificationMessage {
  return {
    title: renderTemplate(templates.title, event, escaperFor(markup.title)),
    text: renderTemplate(templates.byKind[event.kind], event, escaperFor(markup.text)),
  };
}
