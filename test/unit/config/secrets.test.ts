import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { Secret, readSlackSecrets } from '../../../src/config/env-secrets.js';
import { parseConfig } from '../../../src/config/parse.js';
import {
  findSecretsInFile,
  maskSecrets,
  redactUrl,
  secretKeyHint,
} from '../../../src/config/secrets.js';

const BOT = 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const APP = 'xapp-1-A0123456789-1234567890123-abcdef0123456789';

describe('findSecretsInFile', () => {
  const cases: { doc: unknown; path: string; envVar: RegExp }[] = [
    { doc: { slack: { channel: BOT } }, path: 'slack.channel', envVar: /SLACK_BOT_TOKEN/ },
    { doc: { slack: { command: APP } }, path: 'slack.command', envVar: /SLACK_APP_TOKEN/ },
    {
      doc: { notify: { templates: { done: `done, ask ${BOT}` } } },
      path: 'notify.templates.done',
      envVar: /SLACK_BOT_TOKEN/,
    },
    {
      doc: { approval: { approvers: { users: ['0123456789abcdef0123456789abcdef'] } } },
      path: 'approval.approvers.users[0]',
      envVar: /SLACK_SIGNING_SECRET/,
    },
    {
      doc: { reboot: { command: ['curl', '-H', 'token: ghp_abcdefghijklmnopqrstuvwxyz012345'] } },
      path: 'reboot.command[2]',
      envVar: /environment/,
    },
    { doc: { cluster: { name: 'AKIAABCDEFGHIJKLMNOP' } }, path: 'cluster.name', envVar: /AWS/ },
  ];
  for (const c of cases) {
    it(`finds the secret at ${c.path}`, () => {
      const problems = findSecretsInFile(c.doc);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]?.path, c.path);
      assert.match(problems[0]?.hint ?? '', c.envVar);
    });
  }
  it('the signing-secret case says signing secret only for an exact 32-hex value', () => {
    const [problem] = findSecretsInFile({ a: '0123456789abcdef0123456789abcdef' });
    assert.match(problem?.message ?? '', /signing secret/);
    assert.match(problem?.hint ?? '', /SLACK_SIGNING_SECRET/);
  });
  it('ignores ordinary values, including shoutrrr URLs', () => {
    const doc = {
      cluster: { type: 'sim' },
      notify: { urls: ['slack://hook:WNA3PBYV6-F20DUQND3RQ-Webc4MAvoacrpPakR8phF0zi@webhook'] },
      slot: { concurrency: 3 },
    };
    assert.deepEqual(findSecretsInFile(doc), []);
  });
  it('never quotes the secret in the problem', () => {
    const text = JSON.stringify(findSecretsInFile({ slack: { channel: BOT } }));
    assert.ok(!text.includes(BOT.slice(5, 20)), text);
  });
});

describe('maskSecrets', () => {
  it('masks tokens inside text', () => {
    const masked = maskSecrets(`token ${BOT} here`);
    assert.equal(masked, 'token xoxb…(masked) here');
  });
  it('leaves other text alone', () => assert.equal(maskSecrets('15 minutes'), '15 minutes'));
});

describe('redactUrl', () => {
  const cases: [string, string][] = [
    ['discord://token@123456', 'discord://***@123456'],
    ['slack://hook:AAA-BBB-CCC@webhook', 'slack://***@webhook'],
    ['gotify://gotify.example.com/Aabcdefghijklmn', 'gotify://gotify.example.com/***'],
    ['https://hooks.example.com/services/T0/B0/xyz?x=1', 'https://hooks.example.com/***'],
    ['https://example.com', 'https://example.com'],
    ['not a url secretpart', '(value masked)'],
    ['weird:secretpart with spaces', 'weird:(value masked)'],
  ];
  for (const [url, want] of cases) {
    it(`${want}`, () => assert.equal(redactUrl(url), want));
  }
});

describe('secretKeyHint', () => {
  const cases: [string, RegExp | undefined][] = [
    ['botToken', /SLACK_BOT_TOKEN/],
    ['signingSecret', /SLACK_SIGNING_SECRET/],
    ['appToken', /SLACK_APP_TOKEN/],
    ['password', /environment/],
    ['concurrency', undefined],
  ];
  for (const [key, want] of cases) {
    it(key, () => {
      const hint = secretKeyHint(key);
      if (want === undefined) assert.equal(hint, undefined);
      else assert.match(hint ?? '', want);
    });
  }
});

describe('Secret', () => {
  const secret = new Secret(BOT);
  it('reveals its value on request', () => assert.equal(secret.reveal(), BOT));
  it('prints redacted as JSON, text and in inspect', () => {
    assert.equal(JSON.stringify({ secret }), '{"secret":"[redacted]"}');
    assert.equal(String(secret), '[redacted]');
    assert.ok(!inspect({ secret }).includes('xoxb'), inspect({ secret }));
  });
});

describe('readSlackSecrets', () => {
  const cases: { name: string; env: Record<string, string>; paths: string[]; keys: string[] }[] = [
    { name: 'nothing set: no Slack, no problem', env: {}, paths: [], keys: [] },
    {
      name: 'Socket Mode',
      env: { SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: APP },
      paths: [],
      keys: ['botToken', 'appToken'],
    },
    {
      name: 'HTTP mode',
      env: { SLACK_BOT_TOKEN: BOT, SLACK_SIGNING_SECRET: 'abc123' },
      paths: [],
      keys: ['botToken', 'signingSecret'],
    },
    {
      name: 'bot token alone',
      env: { SLACK_BOT_TOKEN: BOT },
      paths: ['$SLACK_BOT_TOKEN'],
      keys: ['botToken'],
    },
    {
      name: 'app token without bot token',
      env: { SLACK_APP_TOKEN: APP },
      paths: ['$SLACK_APP_TOKEN'],
      keys: ['appToken'],
    },
    {
      name: 'a user token where the bot token goes',
      env: { SLACK_BOT_TOKEN: 'xoxp-1-2-3', SLACK_APP_TOKEN: APP },
      paths: ['$SLACK_BOT_TOKEN'],
      keys: ['appToken'],
    },
    {
      name: 'the bot token where the app token goes',
      env: { SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: BOT },
      paths: ['$SLACK_APP_TOKEN'],
      keys: ['botToken'],
    },
    { name: 'empty values count as unset', env: { SLACK_BOT_TOKEN: '' }, paths: [], keys: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { secrets, problems } = readSlackSecrets(c.env);
      assert.deepEqual(
        problems.map((p) => p.path),
        c.paths,
      );
      assert.deepEqual(Object.keys(secrets).sort(), [...c.keys].sort());
      const text = JSON.stringify(problems);
      for (const value of Object.values(c.env)) {
        if (value.length > 8) assert.ok(!text.includes(value), `${text} echoes a secret`);
      }
    });
  }
});

describe('a URL with credentials in the wrong place', () => {
  it('is echoed as scheme and host only', () => {
    const result = parseConfig("notify:\n  urls: 'https://user:hunter2@hooks.example/p4th'\n", 'k');
    assert.ok(!result.ok);
    const text = JSON.stringify(result.problems);
    assert.match(text, /expected a list, got \\"https:\/\/\*\*\*@hooks\.example\/\*\*\*\\"/);
    assert.doesNotMatch(text, /hunter2|p4th/);
  });
});
