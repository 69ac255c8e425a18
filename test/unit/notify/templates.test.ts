/**
 * Message templates: named placeholders, sections that vanish when their value is missing, kured's
 * `%s`, and config errors for anything a template cannot mean.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_KINDS, type MaintenanceEvent } from '../../../src/core/events.js';
import { KubemaintError } from '../../../src/errors.js';
import {
  compileMessageTemplates,
  messageTemplateProblems,
  notificationMessage,
} from '../../../templates/notify/messages.js';
import {
  parseTemplate,
  renderTemplate,
  templateProblems,
} from '../../../templates/notify/render.js';

const base: MaintenanceEvent = {
  kind: 'done',
  node: 'worker-1',
  cluster: 'prod',
  requestId: 'r-7f3a9c',
  action: 'reboot',
};

describe('renderTemplate', () => {
  const cases: { template: string; event?: Partial<MaintenanceEvent>; out: string }[] = [
    { template: '{{node}} in {{cluster}}', out: 'worker-1 in prod' },
    { template: '{{ node }} spaced', out: 'worker-1 spaced' },
    { template: 'Draining node %s', out: 'Draining node worker-1' },
    {
      template: 'Node %s rebooted & uncordoned successfully!',
      out: 'Node worker-1 rebooted & uncordoned successfully!',
    },
    { template: '100%% of %s', out: '100% of worker-1' },
    { template: '50% done', out: '50% done' },
    { template: 'took {{duration}}', event: { durationMs: 3_725_000 }, out: 'took 1h2m5s' },
    { template: 'done{{#duration}} in {{duration}}{{/duration}}.', out: 'done.' },
    {
      template: 'done{{#duration}} in {{duration}}{{/duration}}.',
      event: { durationMs: 90_000 },
      out: 'done in 1m30s.',
    },
    { template: '{{#approver}}by {{approver}}{{/approver}}', event: { approver: '' }, out: '' },
    {
      template: '{{#reason}}[{{#approver}}{{approver}}: {{/approver}}{{reason}}]{{/reason}}',
      event: { reason: 'kernel', approver: 'U1' },
      out: '[U1: kernel]',
    },
    { template: '{{event}} {{action}} {{requestId}}', out: 'done reboot r-7f3a9c' },
    { template: 'to {{version}}', event: { targetVersion: 'v1.31.4' }, out: 'to v1.31.4' },
    {
      template: '{{kind}}: {{targetVersion}}',
      event: { targetVersion: 'v1.31.4' },
      out: 'done: v1.31.4',
    },
    { template: 'missing: [{{reason}}]', out: 'missing: []' },
    { template: 'literal { braces } stay', out: 'literal { braces } stay' },
  ];
  for (const c of cases) {
    it(`renders ${JSON.stringify(c.template)} as ${JSON.stringify(c.out)}`, () => {
      assert.equal(renderTemplate(parseTemplate(c.template), { ...base, ...c.event }), c.out);
    });
  }
});

describe('template problems', () => {
  const cases: { template: string; problems: string[] }[] = [
    { template: 'Node {{nodename}}', problems: ['unknown placeholder {{nodename}}'] },
    { template: '{{#reason}}x', problems: ['{{#reason}} is never closed'] },
    { template: 'x{{/reason}}', problems: ['{{/reason}} closes a section that is not open'] },
    {
      template: '{{#reason}}{{#detail}}{{/reason}}{{/detail}}',
      problems: ['{{/reason}} comes before the inner {{/detail}}', '{{#reason}} is never closed'],
    },
    { template: '{{}}', problems: ['unknown placeholder {{}}'] },
    { template: 'fine {{node}} %s', problems: [] },
  ];
  for (const c of cases) {
    it(`finds ${c.problems.length} problem(s) in ${JSON.stringify(c.template)}`, () => {
      assert.deepEqual(templateProblems(c.template), c.problems);
    });
  }

  it('parseTemplate throws a config error that names the template and lists the placeholders', () => {
    assert.throws(
      () => parseTemplate('{{nod}}', 'notify.templates.done'),
      (error: unknown) =>
        error instanceof KubemaintError &&
        error.code === 'config_invalid' &&
        error.message === 'notify.templates.done: unknown placeholder {{nod}}' &&
        /\{\{node\}\}/.test(error.hint ?? ''),
    );
  });
});

describe('message templates from config', () => {
  it('has a default for every event, and each renders the node and cluster', () => {
    const templates = compileMessageTemplates();
    for (const kind of EVENT_KINDS) {
      const { text, title } = notificationMessage(templates, { ...base, kind });
      assert.match(text, /worker-1/, kind);
      assert.match(text, /prod/, kind);
      assert.equal(title, `[kubemaint] prod: worker-1 ${kind}`);
    }
  });

  it('renders the defaults with the values each event carries', () => {
    const templates = compileMessageTemplates();
    const cases: [Partial<MaintenanceEvent>, string][] = [
      [
        { kind: 'proposed', reason: 'reboot-required label since 2026-01-05' },
        'Node worker-1 in prod needs a reboot: reboot-required label since 2026-01-05 (request r-7f3a9c waits for approval)',
      ],
      [
        { kind: 'approved', approver: 'U0123ABC' },
        'Node worker-1 in prod: reboot approved by U0123ABC (request r-7f3a9c)',
      ],
      [{ kind: 'rejected' }, 'Node worker-1 in prod: reboot rejected'],
      [
        { kind: 'upgrading', action: 'upgrade', targetVersion: 'v1.31.4' },
        'Upgrading the kubelet on node worker-1 in prod to v1.31.4',
      ],
      [{ kind: 'back', durationMs: 245_000 }, 'Node worker-1 in prod is back and Ready after 4m5s'],
      [
        { kind: 'failed', detail: 'node did not come back within 15m; left cordoned' },
        'Node worker-1 in prod: reboot failed: node did not come back within 15m; left cordoned',
      ],
    ];
    for (const [event, text] of cases) {
      assert.equal(notificationMessage(templates, { ...base, ...event }).text, text);
    }
  });

  it('uses a configured template over the default and keeps the others', () => {
    const templates = compileMessageTemplates({
      templates: { rebooting: 'Rebooting node %s' },
      title: '{{cluster}}/{{node}}',
    });
    assert.deepEqual(notificationMessage(templates, { ...base, kind: 'rebooting' }), {
      title: 'prod/worker-1',
      text: 'Rebooting node worker-1',
    });
    assert.equal(
      notificationMessage(templates, { ...base, kind: 'draining' }).text,
      'Draining node worker-1 in prod',
    );
  });

  it('reports unknown events and bad templates with their config paths, all at once', () => {
    const config = { templates: { drained: 'x', done: '{{nod}}' }, title: '{{#x}}' };
    assert.deepEqual(messageTemplateProblems(config), [
      {
        path: 'templates.drained',
        message: `unknown event — use one of ${EVENT_KINDS.join(', ')}`,
      },
      { path: 'templates.done', message: 'unknown placeholder {{nod}}' },
      { path: 'title', message: 'unknown placeholder {{#x}}' },
    ]);
    assert.throws(
      () => compileMessageTemplates(config),
      (error: unknown) =>
        error instanceof KubemaintError &&
        error.code === 'config_invalid' &&
        error.message.includes('notify.templates.drained') &&
        error.message.includes('notify.templates.done') &&
        error.message.includes('notify.title'),
    );
  });
});
