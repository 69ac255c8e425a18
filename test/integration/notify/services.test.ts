/**
 * Every service against a local HTTP receiver: the exact method, path (with query), headers and body
 * a real service would receive. Cloud services are reached through the test-only `baseUrl`; the
 * self-hosted ones through their own `disabletls` / `scheme=http` options, as a user would.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseNotifyUrl } from '../../../src/adapters/notify/parse.js';
import type { NotifyMessage } from '../../../src/adapters/notify/types.js';
import { startHttpRecorder, type HttpRecorder, type Reply } from '../../support/http-recorder.js';

interface Expected {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON, or the raw text for non-JSON bodies. */
  body: unknown;
}

interface Case {
  name: string;
  url: (receiver: string) => string;
  viaBaseUrl: boolean;
  message: NotifyMessage;
  replies?: Reply[];
  expect: Expected[];
}

const text = 'Rebooting node worker-1 in prod\nsecond line';
const json = { 'content-type': 'application/json' };

const cases: Case[] = [
  {
    name: 'slack bot token posts chat.postMessage with a Bearer token',
    url: () =>
      'slack://xoxb:123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N@C001CH4NN3L?botname=kubemaint&icon=wrench&thread_ts=1700000000.000100',
    viaBaseUrl: true,
    message: { text, title: 'ignored by chat services' },
    replies: [{ status: 200, body: '{"ok":true}' }],
    expect: [
      {
        method: 'POST',
        path: '/api/chat.postMessage',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          authorization: 'Bearer xoxb-123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N',
        },
        body: {
          text,
          username: 'kubemaint',
          channel: 'C001CH4NN3L',
          thread_ts: '1700000000.000100',
          icon_emoji: 'wrench',
        },
      },
    ],
  },
  {
    name: 'slack webhook with a colour sends the title and one attachment per line',
    url: () =>
      'slack://hook:WNA3PBYV6-F20DUQND3RQ-Webc4MAvoacrpPakR8phF0zi@webhook?color=%23ff8000&title=Maintenance',
    viaBaseUrl: true,
    message: { text },
    replies: [{ status: 200, body: 'ok' }],
    expect: [
      {
        method: 'POST',
        path: '/services/WNA3PBYV6/F20DUQND3RQ/Webc4MAvoacrpPakR8phF0zi',
        headers: json,
        body: {
          text: 'Maintenance',
          attachments: [
            { text: 'Rebooting node worker-1 in prod', color: '#ff8000' },
            { text: 'second line', color: '#ff8000' },
          ],
        },
      },
    ],
  },
  {
    name: 'slack legacy token form posts to the webhook',
    url: () => 'slack://ShoutrrrBot@T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
    viaBaseUrl: true,
    message: { text: 'one line' },
    expect: [
      {
        method: 'POST',
        path: '/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
        headers: json,
        body: { text: 'one line', username: 'ShoutrrrBot' },
      },
    ],
  },
  {
    name: 'discord sends one embed per line with the title on the first',
    url: () =>
      'discord://t0k3n-x@123456789012345678?username=kubemaint&title=Maintenance&color=0xff0000',
    viaBaseUrl: true,
    message: { text },
    replies: [{ status: 204 }],
    expect: [
      {
        method: 'POST',
        path: '/api/webhooks/123456789012345678/t0k3n-x',
        headers: json,
        body: {
          embeds: [
            {
              title: 'Maintenance',
              description: 'Rebooting node worker-1 in prod',
              color: 0xff0000,
            },
            { description: 'second line', color: 0xff0000 },
          ],
          username: 'kubemaint',
        },
      },
    ],
  },
  {
    name: 'discord /raw sends the message itself as the JSON body',
    url: () => 'discord://t0k3n@123456789012345678/raw',
    viaBaseUrl: true,
    message: { text: '{"content":"raw message"}' },
    replies: [{ status: 204 }],
    expect: [
      {
        method: 'POST',
        path: '/api/webhooks/123456789012345678/t0k3n',
        headers: json,
        body: { content: 'raw message' },
      },
    ],
  },
  {
    name: 'teams workflow webhook gets an Adaptive Card and keeps its signed query',
    url: () =>
      'teams+https://prod-00.westus.logic.azure.com:443/workflows/0a1b2c/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=s3cr3t&title=Maintenance',
    viaBaseUrl: true,
    message: { text: 'one line' },
    replies: [{ status: 202 }],
    expect: [
      {
        method: 'POST',
        path: '/workflows/0a1b2c/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=s3cr3t',
        headers: json,
        body: {
          type: 'message',
          attachments: [
            {
              contentType: 'application/vnd.microsoft.card.adaptive',
              contentUrl: null,
              content: {
                $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
                type: 'AdaptiveCard',
                version: '1.4',
                body: [
                  {
                    type: 'TextBlock',
                    text: 'Maintenance',
                    weight: 'Bolder',
                    size: 'Medium',
                    wrap: true,
                  },
                  { type: 'TextBlock', text: 'one line', wrap: true },
                ],
              },
            },
          ],
        },
      },
    ],
  },
  {
    name: 'telegram sends once per chat, HTML-escaped, with the thread id',
    url: () =>
      'telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram?chats=@kubemaint_ops,-1001234567890:42&title=Maint&notification=no&preview=no',
    viaBaseUrl: true,
    message: { text: 'drain <blocked> & waiting' },
    replies: [
      { status: 200, body: '{"ok":true}' },
      { status: 200, body: '{"ok":true}' },
    ],
    expect: ['@kubemaint_ops', '-1001234567890'].map((chat) => ({
      method: 'POST',
      path: '/bot110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage',
      headers: json,
      body: {
        chat_id: chat,
        text: '<b>Maint</b>\ndrain &lt;blocked&gt; &amp; waiting',
        parse_mode: 'HTML',
        disable_web_page_preview: true,
        disable_notification: true,
        ...(chat.startsWith('-') ? { message_thread_id: 42 } : {}),
      },
    })),
  },
  {
    name: 'generic+https with template=json, a header, an extra field and a forwarded query',
    url: () =>
      'generic+https://hooks.example.com/in/kubemaint?template=json&@xApiKey=k3y&$cluster=prod&token=abc&_method=keep',
    viaBaseUrl: true,
    message: { text: 'one line', title: 'kubemaint: worker-1 rebooting' },
    expect: [
      {
        method: 'POST',
        path: '/in/kubemaint?token=abc&method=keep',
        headers: { ...json, 'x-api-key': 'k3y' },
        body: { title: 'kubemaint: worker-1 rebooting', message: 'one line', cluster: 'prod' },
      },
    ],
  },
  {
    name: 'generic:// with disabletls, PUT, Basic auth and a raw text body',
    url: (r) => `generic://bot:p%40ss@${new URL(r).host}/raw/in?disabletls=yes&method=PUT`,
    viaBaseUrl: false,
    message: { text: 'plain text body' },
    expect: [
      {
        method: 'PUT',
        path: '/raw/in',
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          authorization: `Basic ${Buffer.from('bot:p@ss').toString('base64')}`,
        },
        body: 'plain text body',
      },
    ],
  },
  {
    name: 'ntfy posts the text to the topic with options as headers and a token',
    url: (r) =>
      `ntfy://:tk_s3cr3t@${new URL(r).host}/maint-alerts?scheme=http&priority=high&tags=warning,wrench&cache=no&click=https://example.com/x`,
    viaBaseUrl: false,
    message: { text: 'one line', title: 'kubemaint: worker-1' },
    expect: [
      {
        method: 'POST',
        path: '/maint-alerts',
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          authorization: `Basic ${Buffer.from(':tk_s3cr3t').toString('base64')}`,
          title: 'kubemaint: worker-1',
          priority: 'high',
          tags: 'warning,wrench',
          cache: 'no',
          click: 'https://example.com/x',
        },
        body: 'one line',
      },
    ],
  },
  {
    name: 'gotify posts JSON to the sub path with the app token',
    url: (r) => `gotify://${new URL(r).host}/gotify/AzyoeNS.D4iJLVa?disabletls=yes&priority=5`,
    viaBaseUrl: false,
    message: { text: 'one line', title: 'kubemaint: worker-1' },
    expect: [
      {
        method: 'POST',
        path: '/gotify/message?token=AzyoeNS.D4iJLVa',
        headers: json,
        body: { message: 'one line', title: 'kubemaint: worker-1', priority: 5 },
      },
    ],
  },
  {
    name: 'pushover posts a form once per device',
    url: () =>
      'pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG/?devices=phone,tablet&priority=1',
    viaBaseUrl: true,
    message: { text: 'one line', title: 'kubemaint' },
    replies: [
      { status: 200, body: '{"status":1}' },
      { status: 200, body: '{"status":1}' },
    ],
    expect: ['phone', 'tablet'].map((device) => ({
      method: 'POST',
      path: '/1/messages.json',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=azGDORePK8gMaC0QOYAMyEEuzJnyUi&user=uQiRzpo4DXghDmr9QzzfQu27cmVRsG&message=one+line&device=${device}&title=kubemaint&priority=1`,
    })),
  },
  {
    name: 'mattermost posts to /hooks/<token> with user, channel and icon',
    url: (r) =>
      `mattermost://kubemaint@${new URL(r).host}/h00ktoken/town-square?disabletls=yes&icon=:wrench:`,
    viaBaseUrl: false,
    message: { text: 'one line' },
    expect: [
      {
        method: 'POST',
        path: '/hooks/h00ktoken',
        headers: json,
        body: {
          text: 'one line',
          username: 'kubemaint',
          channel: 'town-square',
          icon_emoji: ':wrench:',
        },
      },
    ],
  },
  {
    name: 'google chat posts {text} to the webhook URL with its key and token',
    url: () => 'googlechat://chat.googleapis.com/v1/spaces/FOO/messages?key=bar&token=baz',
    viaBaseUrl: true,
    message: { text: 'one line' },
    expect: [
      {
        method: 'POST',
        path: '/v1/spaces/FOO/messages?key=bar&token=baz',
        headers: { 'content-type': 'application/json; charset=UTF-8' },
        body: { text: 'one line' },
      },
    ],
  },
];

describe('notification services against a local receiver', () => {
  let receiver: HttpRecorder;
  before(async () => {
    receiver = await startHttpRecorder();
  });
  after(() => receiver.close());

  for (const c of cases) {
    it(c.name, async () => {
      receiver.requests.length = 0;
      if (c.replies) receiver.reply(...c.replies);
      const target = parseNotifyUrl(c.url(receiver.url));
      await target.send(c.message, c.viaBaseUrl ? { baseUrl: receiver.url } : {});
      assert.equal(receiver.requests.length, c.expect.length);
      c.expect.forEach((expected, i) => {
        const got = receiver.requests[i]!;
        assert.equal(got.method, expected.method);
        assert.equal(got.path, expected.path);
        for (const [name, value] of Object.entries(expected.headers)) {
          assert.equal(got.headers[name], value, `header ${name}`);
        }
        if (!('authorization' in expected.headers))
          assert.equal(got.headers.authorization, undefined);
        const body = typeof expected.body === 'string' ? got.body : JSON.parse(got.body);
        assert.deepEqual(body, expected.body);
      });
    });
  }

  it('rejects a Slack API answer of ok:false without retrying', async () => {
    receiver.reply({ status: 200, body: '{"ok":false,"error":"channel_not_found"}' });
    const target = parseNotifyUrl(
      'slack://xoxb:123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N@C001CH4NN3L',
    );
    await assert.rejects(
      target.send({ text: 'x' }, { baseUrl: receiver.url }),
      (error: unknown) => {
        assert.match(String(error), /channel_not_found/);
        assert.equal((error as { retryable: boolean }).retryable, false);
        assert.doesNotMatch(String(error), /4mt0t4l1/);
        return true;
      },
    );
  });

  it('reports a 429 with the Retry-After it carried, in milliseconds', async () => {
    receiver.reply({ status: 429, headers: { 'Retry-After': '7' }, body: 'slow down' });
    const target = parseNotifyUrl('discord://t0k3n@123456789012345678');
    await assert.rejects(
      target.send({ text: 'x' }, { baseUrl: receiver.url }),
      (error: unknown) => {
        const e = error as { retryable: boolean; retryAfterMs: number; status: number };
        assert.deepEqual([e.status, e.retryable, e.retryAfterMs], [429, true, 7_000]);
        return true;
      },
    );
  });

  it("reads Telegram's retry_after from the body when there is no header", async () => {
    receiver.reply({
      status: 429,
      body: '{"ok":false,"error_code":429,"parameters":{"retry_after":3}}',
    });
    const target = parseNotifyUrl('telegram://1:abc@telegram?chats=123');
    await assert.rejects(
      target.send({ text: 'x' }, { baseUrl: receiver.url }),
      (error: unknown) => {
        assert.equal((error as { retryAfterMs: number }).retryAfterMs, 3_000);
        return true;
      },
    );
  });
});
