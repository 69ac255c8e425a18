/**
 * The smtp:// sender through nodemailer against a local ESMTP server: envelope, login, headers and
 * body of the message as the server received it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseNotifyUrl } from '../../../src/adapters/notify/parse.js';
import { startSmtpRecorder, type SmtpRecorder } from '../../support/smtp-recorder.js';

/** Header value (unfolded) from a raw message. */
function header(data: string, name: string): string | undefined {
  const head = data.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ');
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

const bodyOf = (data: string): string => data.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim();

describe('smtp notifications', () => {
  let server: SmtpRecorder;
  before(async () => {
    server = await startSmtpRecorder();
  });
  after(() => server.close());

  const cases = [
    { auth: 'Plain', method: 'PLAIN' },
    { auth: 'Unknown', method: 'PLAIN' },
  ] as const;
  for (const c of cases) {
    it(`logs in with auth=${c.auth} (escaped password) and delivers to every recipient`, async () => {
      server.mails.length = 0;
      const target = parseNotifyUrl(
        `smtp://bot%40example.com:p%40ss%2Fw0rd@127.0.0.1:${server.port}/?from=kubemaint@example.com&fromname=kubemaint&to=ops@example.com,oncall@example.com&encryption=None&auth=${c.auth}&clienthost=cp.example.com`,
      );
      await target.send({
        text: 'Rebooting node worker-1 in prod',
        title: '[kubemaint] prod: worker-1 rebooting',
      });
      assert.equal(server.mails.length, 1);
      const mail = server.mails[0]!;
      assert.equal(mail.clientName, 'cp.example.com');
      assert.deepEqual(mail.auth, { method: c.method, user: 'bot@example.com', pass: 'p@ss/w0rd' });
      assert.equal(mail.from, 'kubemaint@example.com');
      assert.deepEqual(mail.to, ['ops@example.com', 'oncall@example.com']);
      assert.equal(header(mail.data, 'Subject'), '[kubemaint] prod: worker-1 rebooting');
      assert.equal(header(mail.data, 'From'), 'kubemaint <kubemaint@example.com>');
      assert.equal(header(mail.data, 'To'), 'ops@example.com, oncall@example.com');
      assert.match(header(mail.data, 'Content-Type') ?? '', /^text\/plain; charset=utf-8/);
      assert.equal(bodyOf(mail.data), 'Rebooting node worker-1 in prod');
    });
  }

  it('uses AUTH LOGIN when that is all the server offers, and the URL subject over the title', async () => {
    server.mails.length = 0;
    server.authMethods = 'LOGIN';
    try {
      const target = parseNotifyUrl(
        `smtp://bot:secret@127.0.0.1:${server.port}/?from=a@example.com&to=b@example.com&usestarttls=no&subject=Fixed+subject`,
      );
      await target.send({ text: 'x', title: 'not used' });
    } finally {
      server.authMethods = 'PLAIN LOGIN';
    }
    const mail = server.mails[0]!;
    assert.deepEqual(mail.auth, { method: 'LOGIN', user: 'bot', pass: 'secret' });
    assert.equal(header(mail.data, 'Subject'), 'Fixed subject');
  });

  it('sends no login with auth=None and HTML with usehtml=yes', async () => {
    server.mails.length = 0;
    const target = parseNotifyUrl(
      `smtp://bot:secret@127.0.0.1:${server.port}/?from=a@example.com&to=b@example.com&encryption=None&auth=None&usehtml=yes`,
    );
    await target.send({ text: '<b>bold</b>' });
    const mail = server.mails[0]!;
    assert.equal(mail.auth, undefined);
    assert.match(header(mail.data, 'Content-Type') ?? '', /^text\/html/);
    assert.equal(header(mail.data, 'Subject'), 'kubemaint');
  });

  it('reports a 4xx reply as retryable and never shows the password', async () => {
    server.rejectRecipients = '450 4.2.1 mailbox busy';
    try {
      const target = parseNotifyUrl(
        `smtp://bot:hunter2@127.0.0.1:${server.port}/?from=a@example.com&to=b@example.com&encryption=None`,
      );
      await assert.rejects(target.send({ text: 'x' }), (error: unknown) => {
        const e = error as { retryable: boolean; status: number; message: string };
        assert.equal(e.retryable, true);
        assert.equal(e.status, 450);
        assert.match(e.message, /^smtp:\/\/127\.0\.0\.1:\d+: SMTP 450/);
        assert.doesNotMatch(e.message, /hunter2/);
        return true;
      });
    } finally {
      delete server.rejectRecipients;
    }
  });
});
