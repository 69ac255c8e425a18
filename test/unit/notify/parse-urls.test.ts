/**
 * URL parsing, table-driven from shoutrrr's documented examples (docs/services/*.md and the config
 * docs at containrrr/shoutrrr 3c77fd56), including percent-escaped and `+`-encoded values.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseNotifyUrl } from '../../../src/adapters/notify/parse.js';

const cases: { url: string; service: string; describe: string; config: unknown }[] = [
  {
    url: 'slack://xoxb:123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N@C001CH4NN3L?color=good&title=Great+News&icon=man-scientist&botname=Bot',
    service: 'slack',
    describe: 'slack://C001CH4NN3L',
    config: {
      mode: 'bot',
      token: 'xoxb-123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N',
      channel: 'C001CH4NN3L',
      botName: 'Bot',
      color: 'good',
      icon: 'man-scientist',
      title: 'Great News',
    },
  },
  {
    url: 'slack://hook:WNA3PBYV6-F20DUQND3RQ-Webc4MAvoacrpPakR8phF0zi@webhook',
    service: 'slack',
    describe: 'slack://webhook',
    config: {
      mode: 'webhook',
      token: 'https://hooks.slack.com/services/WNA3PBYV6/F20DUQND3RQ/Webc4MAvoacrpPakR8phF0zi',
    },
  },
  {
    url: 'slack://ShoutrrrBot@T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX?channel=non-default-chan&color=%23ff8000&emoji=sunny&title=Great+News',
    service: 'slack',
    describe: 'slack://T00000000',
    config: {
      mode: 'webhook',
      token: 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
      channel: 'non-default-chan',
      botName: 'ShoutrrrBot',
      color: '#ff8000',
      icon: 'sunny',
      title: 'Great News',
    },
  },
  {
    url: 'discord://token@123456789/raw?splitLines=no&username=kube%20maint&avatar=https%3A%2F%2Fexample.com%2Fa.png&Color=0x50D9ff',
    service: 'discord',
    describe: 'discord://123456789',
    config: {
      webhookId: '123456789',
      token: 'token',
      raw: true,
      splitLines: false,
      color: 0x50d9ff,
      username: 'kube maint',
      avatarUrl: 'https://example.com/a.png',
    },
  },
  {
    url: 'telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram?chats=@channel,-1001234567890:99&parsemode=html&notification=no&preview=false&title=Hi+there',
    service: 'telegram',
    describe: 'telegram://telegram',
    config: {
      token: '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
      chats: [{ chatId: '@channel' }, { chatId: '-1001234567890', threadId: 99 }],
      parseMode: 'HTML',
      notification: false,
      preview: false,
      title: 'Hi there',
    },
  },
  {
    url: 'telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram/?channels=@channel_name',
    service: 'telegram',
    describe: 'telegram://telegram',
    config: {
      token: '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
      chats: [{ chatId: '@channel_name' }],
      parseMode: 'None',
      notification: true,
      preview: true,
    },
  },
  {
    url: 'smtp://us%40er:p%40ss%3Aw%2Frd@mail.example.com:587/?fromAddress=bot@example.com&toAddresses=a@example.com,b@example.com&subject=Node+rebooted&fromName=Kube%20Maint&auth=Plain&encryption=ExplicitTLS&useHTML=yes&clientHost=cp.example.com',
    service: 'smtp',
    describe: 'smtp://mail.example.com:587',
    config: {
      host: 'mail.example.com',
      port: 587,
      username: 'us@er',
      password: 'p@ss:w/rd',
      from: 'bot@example.com',
      fromName: 'Kube Maint',
      to: ['a@example.com', 'b@example.com'],
      subject: 'Node rebooted',
      auth: 'Plain',
      encryption: 'ExplicitTLS',
      useStartTls: true,
      useHtml: true,
      clientHost: 'cp.example.com',
    },
  },
  {
    url: 'smtp://mail.example.com/?from=a@example.com&to=b@example.com',
    service: 'smtp',
    describe: 'smtp://mail.example.com',
    config: {
      host: 'mail.example.com',
      port: 25,
      from: 'a@example.com',
      to: ['b@example.com'],
      auth: 'Unknown',
      encryption: 'Auto',
      useStartTls: true,
      useHtml: false,
      clientHost: 'localhost',
    },
  },
  {
    url: 'generic+https://example.com/api/v1/postStuff?contenttype=text/plain',
    service: 'generic',
    describe: 'generic+https://example.com',
    config: {
      url: 'https://example.com/api/v1/postStuff',
      method: 'POST',
      contentType: 'text/plain',
      titleKey: 'title',
      messageKey: 'message',
      headers: {},
      extra: {},
    },
  },
  {
    url: 'generic+https://example.com/api/v1/postStuff?_contenttype=text/plain',
    service: 'generic',
    describe: 'generic+https://example.com',
    config: {
      url: 'https://example.com/api/v1/postStuff?contenttype=text%2Fplain',
      method: 'POST',
      contentType: 'text/plain; charset=utf-8',
      titleKey: 'title',
      messageKey: 'message',
      headers: {},
      extra: {},
    },
  },
  {
    url: 'generic://example.com:8443/hook?template=JSON&titleKey=subject&messageKey=body&@Authorization=Bearer+abc&@xApiKey=k&$env=prod+eu&method=put',
    service: 'generic',
    describe: 'generic://example.com:8443',
    config: {
      url: 'https://example.com:8443/hook',
      method: 'PUT',
      contentType: 'application/json',
      template: 'json',
      titleKey: 'subject',
      messageKey: 'body',
      headers: { Authorization: 'Bearer abc', 'X-Api-Key': 'k' },
      extra: { env: 'prod eu' },
    },
  },
  {
    url: 'ntfy://user:p%40ss@ntfy.sh/my-topic?priority=5&tags=warning,skull&Title=Hi&delay=30m&icon=https://example.com/i.png&firebase=no',
    service: 'ntfy',
    describe: 'ntfy://ntfy.sh',
    config: {
      url: 'https://ntfy.sh/my-topic',
      headers: {
        Priority: '5',
        Tags: 'warning,skull',
        Delay: '30m',
        'X-Icon': 'https://example.com/i.png',
        Firebase: 'no',
        Authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
      },
      title: 'Hi',
    },
  },
  {
    url: 'gotify://gotify.example.com:8080/sub/path/Aaa.bbb.ccc.ddd?priority=2&title=Kube',
    service: 'gotify',
    describe: 'gotify://gotify.example.com:8080',
    config: {
      baseUrl: 'https://gotify.example.com:8080/sub/path',
      token: 'Aaa.bbb.ccc.ddd',
      priority: 2,
      title: 'Kube',
    },
  },
  {
    url: 'pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG/?devices=device1,device2&priority=-1&title=Kube+Maint',
    service: 'pushover',
    describe: 'pushover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG',
    config: {
      token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi',
      user: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG',
      devices: ['device1', 'device2'],
      priority: -1,
      title: 'Kube Maint',
    },
  },
  {
    url: 'mattermost://bot@mattermost.example.com:8065/thisshouldbeanapitoken/town-square?icon=https://example.com/i.png',
    service: 'mattermost',
    describe: 'mattermost://mattermost.example.com:8065',
    config: {
      url: 'https://mattermost.example.com:8065/hooks/thisshouldbeanapitoken',
      username: 'bot',
      channel: 'town-square',
      icon: 'https://example.com/i.png',
    },
  },
  {
    url: 'mattermost://mattermost.example.com/thisshouldbeanapitoken',
    service: 'mattermost',
    describe: 'mattermost://mattermost.example.com',
    config: { url: 'https://mattermost.example.com/hooks/thisshouldbeanapitoken' },
  },
  {
    url: 'googlechat://chat.googleapis.com/v1/spaces/FOO/messages?key=bar&token=baz',
    service: 'googlechat',
    describe: 'googlechat://chat.googleapis.com',
    config: { url: 'https://chat.googleapis.com/v1/spaces/FOO/messages?key=bar&token=baz' },
  },
  {
    url: 'hangouts://chat.googleapis.com/v1/spaces/FOO/messages?key=bar&token=baz',
    service: 'googlechat',
    describe: 'hangouts://chat.googleapis.com',
    config: { url: 'https://chat.googleapis.com/v1/spaces/FOO/messages?key=bar&token=baz' },
  },
  {
    url: 'teams+https://prod-12.westeurope.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=xYz-_1&title=Kube',
    service: 'teams',
    describe: 'teams+https://prod-12.westeurope.logic.azure.com:443',
    config: {
      url: 'https://prod-12.westeurope.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=xYz-_1',
      title: 'Kube',
    },
  },
];

describe('parseNotifyUrl: shoutrrr examples', () => {
  for (const c of cases) {
    it(`reads ${c.describe} (${c.service})`, () => {
      const target = parseNotifyUrl(c.url);
      assert.equal(target.service, c.service);
      assert.equal(target.describe(), c.describe);
      assert.deepEqual(target.config, c.config);
    });
  }

  it('reads scheme and option names in any case', () => {
    const target = parseNotifyUrl('NTFY://ntfy.sh/topic?PRIORITY=high&Scheme=HTTP');
    assert.deepEqual(target.config, { url: 'http://ntfy.sh/topic', headers: { Priority: 'high' } });
  });
});
