import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { invokeAsync } from '../../../src/adapters/aws/lambda-invoke.js';
import { KubemaintError } from '../../../src/errors.js';
import { startHttpRecorder, type HttpRecorder } from '../../support/http-recorder.js';
import { referenceSignature, sha256 } from '../adapters/aws/independent-sigv4.js';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token-example',
};
const now = new Date('2026-11-22T03:04:05Z');

describe('invokeAsync', () => {
  let server: HttpRecorder;
  before(async () => {
    server = await startHttpRecorder({
      status: 202,
      headers: { 'x-amzn-RequestId': 'req-1' },
    });
  });
  after(() => server.close());

  const options = () => ({
    region: 'eu-west-1',
    credentials,
    now: () => now,
    endpoint: server.url,
  });

  it('sends the exact Invoke request: path, Event type, JSON body, SigV4 scoped to lambda', async () => {
    const result = await invokeAsync(
      'kubemaint-prod-slack',
      { kind: 'deferred', job: 'x' },
      options(),
    );
    assert.equal(result.requestId, 'req-1');
    const req = server.requests.at(-1)!;
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/2015-03-31/functions/kubemaint-prod-slack/invocations');
    assert.equal(req.headers['x-amz-invocation-type'], 'Event');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.headers['x-amz-date'], '20261122T030405Z');
    assert.equal(req.headers['x-amz-security-token'], 'session-token-example');
    assert.deepEqual(JSON.parse(req.body), { kind: 'deferred', job: 'x' });
    const auth = req.headers.authorization ?? '';
    const match =
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261122\/eu-west-1\/lambda\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
        auth,
      );
    assert.ok(match, `unexpected Authorization: ${auth}`);
    const signedHeaderNames = match[1]!.split(';');
    assert.deepEqual(signedHeaderNames, [
      'content-type',
      'host',
      'x-amz-date',
      'x-amz-invocation-type',
      'x-amz-security-token',
    ]);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const expected = referenceSignature({
      method: 'POST',
      path: '/2015-03-31/functions/kubemaint-prod-slack/invocations',
      query: '',
      headers,
      signedHeaderNames,
      payloadHash: sha256(req.body),
      amzDate: '20261122T030405Z',
      region: 'eu-west-1',
      service: 'lambda',
      secret: credentials.secretAccessKey,
    });
    assert.equal(match[2], expected, 'the signature a server would compute');
  });

  const failures = [
    {
      name: 'access denied → config_invalid naming the IAM action',
      reply: {
        status: 403,
        body: JSON.stringify({ message: 'not authorized' }),
        headers: { 'x-amzn-ErrorType': 'AccessDeniedException:http://internal' },
      },
      code: 'config_invalid',
      text: /AccessDeniedException \(not authorized\)/,
      hint: /lambda:InvokeFunction/,
    },
    {
      name: 'unknown function → not_found',
      reply: {
        status: 404,
        body: JSON.stringify({ Type: 'User', message: 'Function not found' }),
        headers: { 'x-amzn-ErrorType': 'ResourceNotFoundException' },
      },
      code: 'not_found',
      text: /ResourceNotFoundException \(Function not found\)/,
      hint: /function name/,
    },
    {
      name: 'a 200 (a synchronous invoke) is not the asynchronous hand-off asked for',
      reply: { status: 200, body: '{}' },
      code: 'unexpected',
      text: /HTTP 200/,
      hint: undefined,
    },
  ] as const;
  for (const failure of failures) {
    it(failure.name, async () => {
      server.reply(failure.reply);
      await assert.rejects(invokeAsync('kubemaint-prod-slack', {}, options()), (error) => {
        assert.ok(error instanceof KubemaintError);
        assert.equal(error.code, failure.code);
        assert.match(error.message, failure.text);
        if (failure.hint) assert.match(error.hint ?? '', failure.hint);
        return true;
      });
    });
  }

  it('refuses a name that is not plain and an oversized payload before sending', async () => {
    const before = server.requests.length;
    for (const name of [
      '',
      ' ',
      'arn:aws:lambda:eu-west-1:123456789012:function:f',
      'f:live',
      'a/b',
    ]) {
      await assert.rejects(invokeAsync(name, {}, options()), /is not a Lambda function name/);
    }
    await assert.rejects(
      invokeAsync('f', { blob: 'x'.repeat(300 * 1024) }, options()),
      /over Lambda's 256 KB async limit/,
    );
    assert.equal(server.requests.length, before);
  });

  it('a connection failure is an error naming the function', async () => {
    await assert.rejects(
      invokeAsync('kubemaint-prod-slack', {}, { ...options(), endpoint: 'http://127.0.0.1:1' }),
      /invoking kubemaint-prod-slack: /,
    );
  });
});
