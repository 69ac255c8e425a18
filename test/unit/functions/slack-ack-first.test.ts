/**
 * Which Slack requests the function answers before its app loads (ADR 0018), read from the raw API
 * Gateway event, and what a replayed listener acked with sent on to response_url.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  acksFirst,
  answerThroughResponseUrl,
  slackRequestKind,
} from '../../../src/compose/lambda/slack-ack-first.js';
import type { AwsEvent } from '../../../src/compose/lambda/slack-handler.js';

const event = (body: string, base64 = true): AwsEvent =>
  ({
    body: base64 ? Buffer.from(body).toString('base64') : body,
    isBase64Encoded: base64,
    headers: {},
  }) as unknown as AwsEvent;
const interaction = (payload: unknown) =>
  new URLSearchParams({ payload: JSON.stringify(payload) }).toString();

describe('slackRequestKind / acksFirst', () => {
  it('a slash command, base64 or not, acks first and keeps its response_url', () => {
    const body = 'command=%2Fmaint&text=help&response_url=https%3A%2F%2Fhooks.slack.com%2Fx';
    for (const base64 of [true, false]) {
      const kind = slackRequestKind(event(body, base64));
      assert.deepEqual(kind, { kind: 'command', responseUrl: 'https://hooks.slack.com/x' });
      assert.equal(acksFirst(kind), true);
    }
  });

  it('a button click acks first', () => {
    const kind = slackRequestKind(
      event(interaction({ type: 'block_actions', response_url: 'https://hooks.slack.com/y' })),
    );
    assert.deepEqual(kind, { kind: 'block_actions', responseUrl: 'https://hooks.slack.com/y' });
    assert.equal(acksFirst(kind), true);
  });

  it('a modal submission, an unknown payload, a broken one or none go through the app', () => {
    for (const body of [
      interaction({ type: 'view_submission' }),
      interaction({ type: 'shortcut' }),
      'payload=%7Bnot-json',
      'token=x',
      '',
    ]) {
      const kind = slackRequestKind(event(body));
      assert.equal(kind.kind, 'other', body);
      assert.equal(acksFirst(kind), false, body);
    }
  });
});

describe('answerThroughResponseUrl', () => {
  const click = event(
    'command=%2Fmaint&text=help&response_url=https%3A%2F%2Fhooks.slack.com%2Fz&user_id=U1',
  );
  function recorder(status = 200) {
    const posts: { url: string; body: unknown }[] = [];
    const post = (async (url: string, init: { body: string }) => {
      posts.push({ url, body: JSON.parse(init.body) as unknown });
      return new Response(null, { status });
    }) as unknown as typeof fetch;
    return { posts, post };
  }

  it('text acks become a message; object acks are sent as they are', async () => {
    const { posts, post } = recorder();
    await answerThroughResponseUrl({ statusCode: 200, body: 'help text' }, click, post);
    await answerThroughResponseUrl(
      { statusCode: 200, body: JSON.stringify({ response_type: 'ephemeral', text: 'no' }) },
      click,
      post,
    );
    assert.deepEqual(posts, [
      { url: 'https://hooks.slack.com/z', body: { text: 'help text' } },
      { url: 'https://hooks.slack.com/z', body: { response_type: 'ephemeral', text: 'no' } },
    ]);
  });

  it('an empty ack, an error answer or no response_url send nothing', async () => {
    const { posts, post } = recorder();
    await answerThroughResponseUrl({ statusCode: 200, body: '' }, click, post);
    await answerThroughResponseUrl({ statusCode: 401, body: 'x' }, click, post);
    await answerThroughResponseUrl({ statusCode: 200, body: 'x' }, event('command=%2Fm'), post);
    assert.deepEqual(posts, []);
  });

  it('a refused post is an error the handler logs', async () => {
    const { post } = recorder(404);
    await assert.rejects(
      answerThroughResponseUrl({ statusCode: 200, body: 'x' }, click, post),
      /response_url answered 404/,
    );
  });
});
