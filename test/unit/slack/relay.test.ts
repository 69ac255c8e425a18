/**
 * The relay from a standby to the leader (ADR 0054): byte for byte with Slack's signature headers,
 * and never a request this replica could not verify itself.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ackBodyOf, relayToLeader, RELAYED_BY_HEADER } from '../../../src/adapters/slack/relay.js';
import { slackHeaders } from '../../support/slack-sign.js';

const SECRET = 'relay-secret';

describe('relay to the leader', () => {
  const seen: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  let url = '';
  let answer = { status: 200, type: 'application/json', body: '{"text":"ok"}', delayMs: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks) });
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': answer.type });
        res.end(answer.body);
      }, answer.delayMs);
    });
  });
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const signed = (body: string, secret = SECRET) => {
    const h = slackHeaders(secret, body);
    return {
      body: Buffer.from(body),
      signature: h['X-Slack-Signature'],
      timestamp: h['X-Slack-Request-Timestamp'],
      contentType: h['Content-Type'],
      relayedBy: undefined,
    };
  };
  // Generous: a loaded test machine is slower than Slack's 3 s; the too-slow case sets its own.
  const options = { signingSecret: SECRET, identity: 'serve-b_1', timeoutMs: 30_000 };

  it('sends the body and Slack headers as they came, and brings the answer back', async () => {
    const body = 'payload=%7B%22type%22%3A%22block_actions%22%7D&x=%C3%A9';
    const request = signed(body);
    const got = await relayToLeader(url, request, options);
    assert.deepEqual(ackBodyOf(got), { text: 'ok' });
    const last = seen.at(-1)!;
    assert.equal(last.body.toString(), body);
    assert.equal(last.headers['x-slack-signature'], request.signature);
    assert.equal(last.headers['x-slack-request-timestamp'], request.timestamp);
    assert.equal(last.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(last.headers[RELAYED_BY_HEADER], 'serve-b_1');
  });

  it('never sends what it cannot verify', async () => {
    const count = seen.length;
    await assert.rejects(
      relayToLeader(url, signed('a=1', 'forged'), options),
      /not relayed: the signature is wrong/,
    );
    await assert.rejects(
      relayToLeader(url, { ...signed('a=1'), signature: undefined }, options),
      /not relayed: no X-Slack-Signature/,
    );
    assert.equal(seen.length, count);
  });

  it('fails on an answer other than 200, and on a leader too slow for Slack', async () => {
    answer = { status: 401, type: 'text/plain', body: '', delayMs: 0 };
    await assert.rejects(relayToLeader(url, signed('a=1'), options), /the leader answered 401/);
    answer = { status: 200, type: 'text/plain', body: '', delayMs: 0 };
    assert.equal(ackBodyOf(await relayToLeader(url, signed('a=1'), options)), undefined);
    answer = { ...answer, delayMs: 2_000 };
    await assert.rejects(
      relayToLeader(url, signed('a=1'), { ...options, timeoutMs: 50 }),
      /timeout|aborted/i,
    );
  });
});
