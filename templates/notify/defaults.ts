/**
 * The text each event sends when the config names no template of its own, plus the title that
 * services with a subject line (email, ntfy, Gotify, Pushover, generic JSON) show above it.
 * Named placeholders are listed in `render.ts`; `{{#x}}…{{/x}}` shows its inside only when x is set.
 */
import type { EventKind } from '../../src/core/events.js';

export const DEFAULT_TEMPLATES: Readonly<Record<EventKind, string>> = {
  proposed:
    'Node {{node}} in {{cluster}} needs a {{action}}{{#reason}}: {{reason}}{{/reason}} (request {{requestId}} waits for approval)',
  approved:
    'Node {{node}} in {{cluster}}: {{action}} approved{{#approver}} by {{approver}}{{/approver}} (request {{requestId}})',
  rejected:
    'Node {{node}} in {{cluster}}: {{action}} rejected{{#approver}} by {{approver}}{{/approver}}{{#reason}}: {{reason}}{{/reason}}',
  blocked: 'Node {{node}} in {{cluster}}: {{action}} is blocked{{#reason}}: {{reason}}{{/reason}}',
  draining: 'Draining node {{node}} in {{cluster}}',
  rebooting: 'Rebooting node {{node}} in {{cluster}}',
  upgrading:
    'Upgrading the kubelet on node {{node}} in {{cluster}}{{#version}} to {{version}}{{/version}}',
  back: 'Node {{node}} in {{cluster}} is back and Ready{{#duration}} after {{duration}}{{/duration}}',
  done: 'Node {{node}} in {{cluster}}: {{action}} done{{#duration}} in {{duration}}{{/duration}}',
  failed: 'Node {{node}} in {{cluster}}: {{action}} failed{{#detail}}: {{detail}}{{/detail}}',
  hook: 'Node {{node}} in {{cluster}}: {{reason}}',
};

export const DEFAULT_TITLE = '[kubemaint] {{cluster}}: {{node}} {{event}}';

/**
 * kured's three `--message-template-*` flags and the events they map to, so a kured config can be
 * carried over as is (kured fills its one `%s` with the node name).
 */
export const KURED_TEMPLATE_EVENTS = {
  drain: 'draining',
  reboot: 'rebooting',
  uncordon: 'back',
} as const satisfies Record<string, EventKind>;
