/**
 * Chat injection (issue 15): a reason, node name, packages annotation, requester or Slack-typed text
 * carrying `<!channel>`, `<http://x|y>`, `@here`, backticks and line breaks reaches no chat as a live
 * mention or link. Every Slack message kind (blocks and the top-level `text`), the Slack adapter's own
 * replies, and every notification service, per event kind and parse mode, with the hostile payloads
 * kept as golden files (`UPDATE_GOLDEN=1` regenerates them; review the diff).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createNotifier } from '../../../src/adapters/notify/notifier.js';
import { parseNotifyUrl } from '../../../src/adapters/notify/parse.js';
import { helpText } from '../../../src/adapters/slack/help.js';
import { goneMessage } from '../../../src/adapters/slack/prompt-refresh.js';
import { describeRequest } from '../../../src/adapters/slack/run-command.js';
import { EVENT_KINDS, type MaintenanceEvent } from '../../../src/core/events.js';
import { escapeMarkdown, escapeMrkdwn, MARKUPS, escaperFor } from '../../../src/core/markup.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import {
  compileMessageTemplates,
  notificationMessage,
} from '../../../templates/notify/messages.js';
import {
  campaignPrompt,
  detailsModal,
  drainQuestion,
  rejectModal,
  requestPrompt,
  threadReply,
} from '../../../templates/slack/index.js';
import { byState, ctx, preview } from './slack-fixtures.js';
import { REQUEST_STATES_FOR_TEST } from './slack-states.js';

/** Everything a person, an agent or the cluster could put into a value at once. */
const HOSTILE =
  '<!channel> @here `x` <http://x|y>\n*Approved* by <@U0BOSS> [click](http://evil) <users/all> @all &amp;';

/** The hostile value's mentions and links, live in Slack mrkdwn (kubemaint's own `<@U0ALICE>` may be). */
const SLACK_LIVE = /<!channel|<http:\/\/x|<@U0BOSS|@(here|channel|everyone|all)\b/i;

type Json = Record<string, unknown>;

/** The strings Slack reads as mrkdwn: the top-level text, mrkdwn text objects, confirm texts. */
function slackTexts(value: unknown, out: string[] = [], key = ''): string[] {
  if (typeof value === 'string') {
    if (key === 'text') out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) slackTexts(v, out);
  } else if (value && typeof value === 'object') {
    const o = value as Json;
    // plain_text (headers, buttons, modal titles) is shown as typed: nothing in it is live.
    if (o['type'] === 'plain_text') return out;
    for (const [k, v] of Object.entries(o)) slackTexts(v, out, k);
  }
  return out;
}

const hostileRequest: MaintenanceRequest = {
  ...byState.failed,
  node: HOSTILE,
  reason: HOSTILE,
  failure: HOSTILE,
  requestedBy: HOSTILE,
  campaign: HOSTILE,
  pool: HOSTILE,
  slot: HOSTILE,
  blockedReasons: [HOSTILE],
  approvals: [{ by: HOSTILE, at: '2026-11-22T01:30:00Z' }],
  history: [
    ...byState.failed.history,
    { from: 'failed', to: 'failed', at: HOSTILE, by: HOSTILE, note: HOSTILE },
  ],
  drain: {
    total: 2,
    evicted: 1,
    waitingOn: [{ pod: HOSTILE, reason: HOSTILE }],
    stalledSince: '2026-11-22T01:45:00Z',
    message: HOSTILE,
  },
};
const hostilePreview = {
  ...preview,
  packages: [HOSTILE, 'libc6'],
  evict: [HOSTILE],
  warnings: [HOSTILE],
  blockers: [HOSTILE],
  budgets: [{ name: HOSTILE, pods: [HOSTILE] }],
  errors: [HOSTILE],
  window: { open: false, freeze: HOSTILE, nextOpening: HOSTILE, schedule: [HOSTILE] },
};
const hostileCtx = { ...ctx, preview: hostilePreview };
const hostileEvent = (kind: MaintenanceEvent['kind']): MaintenanceEvent => ({
  kind,
  node: HOSTILE,
  cluster: HOSTILE,
  requestId: HOSTILE,
  action: kind === 'upgrading' ? 'upgrade' : 'reboot',
  reason: HOSTILE,
  approver: HOSTILE,
  detail: HOSTILE,
  targetVersion: HOSTILE,
  durationMs: 1_000,
});

const slackMessages: [string, unknown][] = [
  ...REQUEST_STATES_FOR_TEST.map((state): [string, unknown] => [
    `request prompt (${state})`,
    requestPrompt({ ...hostileRequest, state }, hostileCtx),
  ]),
  [
    'upgrade prompt',
    requestPrompt({ ...hostileRequest, action: 'upgrade', state: 'proposed' }, ctx),
  ],
  [
    'campaign prompt',
    campaignPrompt(
      [
        { ...hostileRequest, state: 'proposed' },
        { ...hostileRequest, id: 'r-000002', state: 'failed' },
      ],
      { ...ctx, cluster: HOSTILE, nextWindow: HOSTILE },
    ),
  ],
  ...EVENT_KINDS.map((kind): [string, unknown] => [
    `thread reply (${kind})`,
    threadReply(hostileEvent(kind)),
  ]),
  ['drain question', drainQuestion(hostileRequest, { mention: [HOSTILE, 'U0ALICE'] })],
  ['details modal', detailsModal(hostileRequest, hostilePreview)],
  ['reject modal', rejectModal({ requestId: HOSTILE })],
  ['reject modal (campaign)', rejectModal({ campaign: HOSTILE })],
  ['prompt of a request that is gone', goneMessage(HOSTILE, HOSTILE)],
  ['help', { text: helpText('/maint', HOSTILE) }],
  ['status line', { text: describeRequest(hostileRequest) }],
];

describe('chat injection: Slack messages', () => {
  for (const [name, message] of slackMessages) {
    it(`${name}: no mention or link from a value is live, blocks and fallback text alike`, () => {
      const texts = slackTexts(message);
      assert.ok(texts.length > 0, 'the message has text');
      for (const text of texts) assert.doesNotMatch(text, SLACK_LIVE, text);
      // The values arrived, escaped: nothing was dropped to pass.
      assert.ok(
        texts.some((t) => t.includes('&lt;!channel&gt;')),
        texts.join('\n---\n'),
      );
    });
  }

  it('the fallback text of a prompt carries the escaped reason (it notifies people)', () => {
    const { text } = requestPrompt({ ...byState.proposed, reason: HOSTILE }, ctx);
    assert.match(text, /&lt;!channel&gt; @\u2060here `x` &lt;http:\/\/x\|y&gt;/);
    assert.match(text, /&amp;amp;$/);
  });

  it('kubemaint’s own mentions stay live: approvers in a stalled-drain question', () => {
    const { blocks } = drainQuestion(byState.running, { mention: ['U0ALICE', 'S0OPS'] });
    assert.match(JSON.stringify(blocks), /<@U0ALICE> <!subteam\^S0OPS>/);
  });
});

describe('chat injection: the escape of each markup', () => {
  const table: [string, string, string][] = [
    ['mrkdwn', '<!channel> & @here', '&lt;!channel&gt; &amp; @\u2060here'],
    ['mrkdwn', 'it\'s "quoted" *bold* _it_ `code`', 'it\'s "quoted" *bold* _it_ `code`'],
    [
      'markdown',
      '[click](http://evil) <http://x> @channel',
      '\\[click\\](http://evil) \\<http://x\\> @\u2060channel',
    ],
    [
      'markdown',
      '# head\n> quote | *x* `y` ~z~ &lt;',
      '\\# head\n\\> quote \\| \\*x\\* \\`y\\` \\~z\\~ \\&lt;',
    ],
    ['markdown', 'ip-10-0-1-5.eu-west-1 (node_a)', 'ip-10-0-1-5.eu-west-1 (node\\_a)'],
    ['markdown-json', 'a "b" [c]\n', 'a \\"b\\" \\\\[c\\\\]\\n'],
    ['googlechat', '<users/all> <https://x|y>', '<\u2060users/all> <\u2060https://x|y>'],
    ['telegram-markdown', '*b* _i_ `c` [l](u)', '\\*b\\* \\_i\\_ \\`c\\` \\[l](u)'],
    ['telegram-markdownv2', 'node-1.x (a)!', 'node\\-1\\.x \\(a\\)\\!'],
    ['html', '<a href="x">&', '&lt;a href="x"&gt;&amp;'],
    ['plain', '<!channel> @here', '<!channel> @here'],
  ];
  for (const [markup, input, output] of table) {
    it(`${markup}: ${JSON.stringify(input)}`, () => {
      assert.ok((MARKUPS as readonly string[]).includes(markup));
      assert.equal(escaperFor(markup as (typeof MARKUPS)[number])(input), output);
    });
  }

  it('each is one function, the same the Slack templates and the notifier use', () => {
    assert.equal(escaperFor('mrkdwn'), escapeMrkdwn);
    assert.equal(escaperFor('markdown'), escapeMarkdown);
  });
});

// ---- notifications --------------------------------------------------------------------------

const URLS = {
  slack: 'slack://xoxb:123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N@C001CH4NN3L',
  'slack (attachments)':
    'slack://hook:WNA3PBYV6-F20DUQND3RQ-Webc4MAvoacrpPakR8phF0zi@webhook?color=%23ff8000',
  mattermost: 'mattermost://kubemaint@chat.example.com/t0k3n/ops',
  discord: 'discord://t0k3n@123456789012345678',
  'discord (raw)': 'discord://t0k3n@123456789012345678/raw',
  teams:
    'teams+https://prod-00.westus.logic.azure.com:443/workflows/0a1b2c/triggers/manual/paths/invoke?sig=s3cr3t',
  googlechat: 'googlechat://chat.googleapis.com/v1/spaces/FOO/messages?key=bar&token=baz',
  'telegram (plain)': 'telegram://1:abc@telegram?chats=123',
  'telegram (HTML)': 'telegram://1:abc@telegram?chats=123&parsemode=HTML',
  'telegram (Markdown)': 'telegram://1:abc@telegram?chats=123&parsemode=Markdown',
  'telegram (MarkdownV2)': 'telegram://1:abc@telegram?chats=123&parsemode=MarkdownV2',
  ntfy: 'ntfy://ntfy.sh/kubemaint',
} as const;
type Service = keyof typeof URLS;

/** A markdown link, autolink or mention that no backslash made inert. */
const MARKDOWN_LIVE = /(^|[^\\])\[[^\]\n]*\]\(|(^|[^\\])<[!@a-z]|@(here|channel|all|everyone)\b/i;

/** What each service would show as a live mention or link (its own syntax). */
const LIVE: Record<Service, RegExp> = {
  slack: SLACK_LIVE,
  'slack (attachments)': SLACK_LIVE,
  mattermost: MARKDOWN_LIVE,
  discord: MARKDOWN_LIVE,
  'discord (raw)': MARKDOWN_LIVE,
  teams: MARKDOWN_LIVE,
  googlechat: /<(?!\u2060)|@all\b/,
  'telegram (plain)': /<(?!\/?b>)/,
  'telegram (HTML)': /<(?!\/?b>)/,
  'telegram (Markdown)': /(^|[^\\])\[/,
  'telegram (MarkdownV2)': /(^|[^\\])\[/,
  // Plain text shows everything as typed; nothing in it is live.
  ntfy: /$^/,
};

/** The text people see in each service's request body. */
function shownTexts(service: Service, body: string): string[] {
  if (service === 'ntfy') return [body];
  const json = JSON.parse(body) as Json;
  if (service.startsWith('discord (raw)')) return [String(json['content'])];
  return slackTexts(json).concat(
    service === 'discord'
      ? ((json['embeds'] as Json[]) ?? []).map((e) => String(e['description']))
      : [],
  );
}

async function sentBodies(
  service: Service,
  event: MaintenanceEvent,
): Promise<{ body: string; url: string }[]> {
  const bodies: { body: string; url: string }[] = [];
  // sendHttp passes the URL and a string body.
  const fetch = (async (url: string, init?: { body?: string }) => {
    bodies.push({ url, body: init?.body ?? '' });
    // Slack's webhooks answer `ok`, its Web API `{"ok":true}`; the others only need a 200.
    return new Response(url.includes('hooks.slack.com') ? 'ok' : '{"ok":true}');
  }) as unknown as typeof globalThis.fetch;
  // Discord's raw mode sends the template itself as the body: a JSON template, as its docs say.
  const templates = compileMessageTemplates(
    service === 'discord (raw)'
      ? { templates: { [event.kind]: '{"content":"{{node}}: {{reason}} {{detail}}"}' } }
      : {},
  );
  const notifier = createNotifier({
    targets: [parseNotifyUrl(URLS[service])],
    log: pino({ level: 'silent' }),
    templates,
    io: { fetch },
    retry: { attempts: 1 },
  });
  const results = await notifier.sendEvent(event);
  assert.deepEqual(
    results.map((r) => r.ok),
    [true],
  );
  return bodies;
}

describe('chat injection: notifications', () => {
  const golden: Record<string, unknown> = {};
  for (const service of Object.keys(URLS) as Service[]) {
    for (const kind of EVENT_KINDS) {
      it(`${service}, ${kind}: values are escaped for the service, none is live`, async () => {
        const sent = await sentBodies(service, hostileEvent(kind));
        assert.equal(sent.length, 1);
        const texts = shownTexts(service, sent[0]!.body);
        assert.ok(texts.length > 0);
        for (const text of texts) assert.doesNotMatch(text, LIVE[service], text);
        if (kind === 'failed') golden[service] = JSON.parse(JSON.stringify(texts)) as unknown;
      });
    }
  }

  it('the escaped payloads are as recorded (test/fixtures/golden/notify-hostile.golden.json)', () => {
    const file = new URL('../../fixtures/golden/notify-hostile.golden.json', import.meta.url);
    const text = `${JSON.stringify(golden, null, 2)}\n`;
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(file, text);
    assert.equal(text, readFileSync(file, 'utf8'));
  });

  it('the template’s own text is the config author’s: sent as written, values escaped', () => {
    const templates = compileMessageTemplates({
      templates: { done: '<!here> {{node}} is done' },
    });
    const message = notificationMessage(templates, hostileEvent('done'), {
      text: 'mrkdwn',
      title: 'plain',
    });
    assert.match(message.text, /^<!here> &lt;!channel&gt; @\u2060here/);
  });

  it('e-mail escapes values as HTML only when the body is HTML', () => {
    const html = parseNotifyUrl(
      'smtp://u:p@mail.example.com:587/?from=a@x.io&to=b@x.io&usehtml=yes',
    );
    const text = parseNotifyUrl('smtp://u:p@mail.example.com:587/?from=a@x.io&to=b@x.io');
    assert.equal(html.markup, 'html');
    assert.equal(text.markup, 'plain');
  });
});
