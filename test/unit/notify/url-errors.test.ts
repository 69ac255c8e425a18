/**
 * Unusable URLs are config errors at start: each names what is wrong, and none repeats a secret.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseNotifyUrls, validateNotifyUrls } from '../../../src/adapters/notify/parse.js';
import { maskUrl } from '../../../src/adapters/notify/url.js';
import { KubemaintError } from '../../../src/errors.js';

const SECRET = 'S3cr3tT0ken';

const cases: { url: string; problem: RegExp }[] = [
  { url: `slack://xoxb:${SECRET}@C001`, problem: /not a Slack token/ },
  {
    url: `slack://xoxb:123456789-123456789-${SECRET}aaaaaaaaaaaaa@webhook`,
    problem: /needs a channel/,
  },
  { url: `slack://AAAAAAAAA-BBBBBBBBB/${SECRET}aaaaaaaaaaaaa`, problem: /mixes separators/ },
  { url: `slack://hook:AAAAAAAAA-BBBBBBBBB-${SECRET}/aaaaaaaa@webhook`, problem: /is not a URL/ },
  { url: `discord://${SECRET}@not-digits`, problem: /webhook id must be digits/ },
  { url: 'discord://123456', problem: /token is missing/ },
  { url: `discord://${SECRET}@123/other`, problem: /only path.*\/raw/ },
  {
    url: `teams://g@t/${SECRET}/o?host=contoso.webhook.office.com`,
    problem: /retired Office 365 connector/,
  },
  {
    url: `teams+https://contoso.webhook.office.com/webhookb2/${SECRET}`,
    problem: /retired Office 365 connector/,
  },
  { url: `https://hooks.example.com/${SECRET}`, problem: /unknown service "https"/ },
  { url: `telegram://${SECRET}@telegram?chats=1`, problem: /bot token must look like/ },
  { url: `telegram://1:${SECRET}@telegram`, problem: /chats=… is required/ },
  { url: `telegram://1:${SECRET}@telegram?chats=1&parsemode=bbcode`, problem: /parsemode=bbcode/ },
  {
    url: `telegram://1:${SECRET}@telegram?chats=1&preview=maybe`,
    problem: /preview=maybe is not yes or no/,
  },
  {
    url: `smtp://u:${SECRET}@mail.example.com/?to=a@example.com`,
    problem: /from=<address> is required/,
  },
  { url: `smtp://u:${SECRET}@mail.example.com/?from=a@example.com`, problem: /to=<address>/ },
  {
    url: `smtp://u:${SECRET}@mail.example.com/?from=a@x.com&to=a@x.com&auth=Kerberos`,
    problem: /auth=Kerberos/,
  },
  {
    url: `generic+https://example.com/x?template=fancy&token=${SECRET}`,
    problem: /template=fancy is unknown/,
  },
  { url: `ntfy://ntfy.sh/?token=${SECRET}`, problem: /host or topic is missing/ },
  { url: `ntfy://:${SECRET}@ntfy.sh/t?priority=9`, problem: /priority=9/ },
  { url: `gotify://gotify.example.com/${SECRET}`, problem: /app token/ },
  { url: `pushover://shoutrrr:${SECRET}@user-key/`, problem: /user key/ },
  {
    url: `pushover://shoutrrr:${SECRET}@user1/?priority=2`,
    problem: /priority=2 must be a whole number from -2 to 1/,
  },
  { url: `mattermost://mm.example.com/${SECRET}/chan/extra`, problem: /optional channel/ },
  {
    url: `googlechat://chat.googleapis.com/v1/spaces/FOO/messages?key=${SECRET}`,
    problem: /key and token/,
  },
  {
    url: `smtp://u:${SECRET}%zz@mail.example.com/?from=a@x.com&to=b@x.com`,
    problem: /broken %-escape/,
  },
  { url: `not a url ${SECRET}`, problem: /is not a URL|unknown service/ },
];

describe('notification URL problems', () => {
  for (const c of cases) {
    it(`refuses ${maskUrl(c.url)}: ${c.problem.source}`, () => {
      const [problem, ...rest] = validateNotifyUrls([c.url]);
      assert.equal(rest.length, 0);
      assert.ok(problem, 'expected a problem');
      assert.equal(problem.index, 0);
      assert.match(problem.message, c.problem);
      assert.doesNotMatch(problem.message, new RegExp(SECRET));
      assert.doesNotMatch(problem.hint ?? '', new RegExp(SECRET));
    });
  }

  it('lists every bad URL in one config error, with its position', () => {
    const urls = ['ntfy://ntfy.sh/ok', `slack://xoxb:${SECRET}@C1`, 'gotify://g/x'];
    assert.throws(
      () => parseNotifyUrls(urls),
      (error: unknown) => {
        assert.ok(error instanceof KubemaintError);
        assert.equal(error.code, 'config_invalid');
        assert.match(error.message, /notify\.urls\[1\]: notify URL slack:\/\/C1: /);
        assert.match(error.message, /notify\.urls\[2\]: notify URL gotify:\/\/g: /);
        assert.doesNotMatch(error.message, /urls\[0\]/);
        assert.doesNotMatch(error.message, new RegExp(SECRET));
        return true;
      },
    );
  });

  it('accepts a list of good URLs', () => {
    assert.deepEqual(validateNotifyUrls(['ntfy://ntfy.sh/a', 'generic+http://127.0.0.1:9/x']), []);
  });
});

describe('maskUrl', () => {
  const masks: [string, string][] = [
    ['slack://hook:AAAA-BBBB-CCCC@webhook?x=1', 'slack://webhook'],
    ['SMTP://user:p@ss@mail.example.com:587/?from=a', 'smtp://mail.example.com:587'],
    ['generic+https://u:pw@example.com/path/secret?token=x', 'generic+https://example.com'],
    ['gotify://gotify.example.com/AxxxxxxxxxxxxxX', 'gotify://gotify.example.com'],
    ['mailto:someone@example.com', 'mailto:…'],
    ['not a url', '(not a URL)'],
  ];
  for (const [raw, masked] of masks) {
    it(`shows ${raw.split(':')[0]} as ${masked}`, () => assert.equal(maskUrl(raw), masked));
  }
});
