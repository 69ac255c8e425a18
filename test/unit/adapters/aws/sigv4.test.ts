import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { presignUrl } from '../../../../src/adapters/aws/presign.js';
import { signRequest } from '../../../../src/adapters/aws/sign-request.js';
import { referenceSignature } from './independent-sigv4.js';

/** SHA-256 of the empty string: the payload hash of a request without a body. */
const EMPTY_PAYLOAD_HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/**
 * The regression check for AWS's signer (@smithy/signature-v4, ADR 0039) as kubemaint calls it:
 * AWS's published SigV4 test suite (aws-sig-v4-test-suite, the files `<case>.creq`, `.sts` and
 * `.authz`): credentials AKIDEXAMPLE, region us-east-1, service "service", 2015-08-30T12:36:00Z.
 */
const SUITE = {
  credentials: {
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  },
  scope: { region: 'us-east-1', service: 'service' },
  now: new Date('2015-08-30T12:36:00Z'),
};
const SUITE_TOKEN =
  'AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==';

describe('SigV4 header signing against the AWS test suite', () => {
  const cases: {
    name: string;
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string;
    creq: string;
    sts: string | undefined;
    signature: string;
  }[] = [
    {
      name: 'get-vanilla-query-order-key-case (query sorted by name)',
      method: 'GET',
      url: 'https://example.amazonaws.com/?Param2=value2&Param1=value1',
      headers: {},
      body: '',
      creq: [
        'GET',
        '/',
        'Param1=value1&Param2=value2',
        'host:example.amazonaws.com',
        'x-amz-date:20150830T123600Z',
        '',
        'host;x-amz-date',
        EMPTY_PAYLOAD_HASH,
      ].join('\n'),
      sts: undefined,
      signature: 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
    },
    {
      name: 'get-vanilla-query-order-value (a repeated name sorted by value)',
      method: 'GET',
      url: 'https://example.amazonaws.com/?Param1=value2&Param1=value1',
      headers: {},
      body: '',
      creq: [
        'GET',
        '/',
        'Param1=value1&Param1=value2',
        'host:example.amazonaws.com',
        'x-amz-date:20150830T123600Z',
        '',
        'host;x-amz-date',
        EMPTY_PAYLOAD_HASH,
      ].join('\n'),
      sts: 'AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nc968629d70850097a2d8781c9bf7edcb988b04cac14cca9be4acc3595f884606',
      signature: '5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694',
    },
    {
      name: 'post-x-www-form-urlencoded (a signed content-type and a hashed body)',
      method: 'POST',
      url: 'https://example.amazonaws.com/',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'Param1=value1',
      creq: [
        'POST',
        '/',
        '',
        'content-type:application/x-www-form-urlencoded',
        'host:example.amazonaws.com',
        'x-amz-date:20150830T123600Z',
        '',
        'content-type;host;x-amz-date',
        '9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e',
      ].join('\n'),
      sts: 'AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281',
      signature: 'ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a',
    },
  ];
  for (const c of cases) {
    it(`matches ${c.name}`, async () => {
      const signed = await signRequest({
        ...SUITE,
        method: c.method,
        url: c.url,
        headers: c.headers,
        body: c.body,
      });
      assert.equal(signed.canonicalRequest, c.creq);
      if (c.sts !== undefined) assert.equal(signed.stringToSign, c.sts);
      assert.equal(signed.signature, c.signature);
      assert.match(
        signed.authorization,
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20150830\/us-east-1\/service\/aws4_request, SignedHeaders=[a-z;-]+, Signature=[0-9a-f]{64}$/,
      );
    });
  }

  it('signs the session token as a header (post-sts-header-before)', async () => {
    const signed = await signRequest({
      ...SUITE,
      credentials: { ...SUITE.credentials, sessionToken: SUITE_TOKEN },
      method: 'POST',
      url: 'https://example.amazonaws.com/',
      headers: {},
      body: '',
    });
    assert.equal(signed.headers['x-amz-security-token'], SUITE_TOKEN);
    assert.equal(
      signed.authorization,
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead',
    );
  });
});

describe('SigV4 presigning against the AWS S3 documentation example', () => {
  // docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html, "An example".
  const presigned = presignUrl({
    url: 'https://examplebucket.s3.amazonaws.com/test.txt',
    credentials: {
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    },
    scope: { region: 'us-east-1', service: 's3' },
    now: new Date('2013-05-24T00:00:00Z'),
    expiresSeconds: 86400,
    payloadHash: 'UNSIGNED-PAYLOAD',
  });
  const query =
    'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host';

  it('builds the documented canonical request', async () => {
    const signed = await presigned;
    assert.equal(
      signed.canonicalRequest,
      `GET\n/test.txt\n${query}\nhost:examplebucket.s3.amazonaws.com\n\nhost\nUNSIGNED-PAYLOAD`,
    );
  });
  it('builds the documented string to sign', async () => {
    const signed = await presigned;
    assert.equal(
      signed.stringToSign,
      'AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04',
    );
  });
  it('produces the documented signature and URL', async () => {
    const signed = await presigned;
    const signature = 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
    assert.equal(signed.signature, signature);
    assert.equal(
      signed.url,
      `https://examplebucket.s3.amazonaws.com/test.txt?${query}&X-Amz-Signature=${signature}`,
    );
  });
  it('agrees with the independent implementation', async () => {
    const signed = await presigned;
    assert.equal(
      signed.signature,
      referenceSignature({
        method: 'GET',
        path: '/test.txt',
        query,
        headers: { host: 'examplebucket.s3.amazonaws.com' },
        signedHeaderNames: ['host'],
        payloadHash: 'UNSIGNED-PAYLOAD',
        amzDate: '20130524T000000Z',
        region: 'us-east-1',
        service: 's3',
        secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      }),
    );
  });
  it('refuses an expiry outside 1 s to 7 days', async () => {
    for (const expiresSeconds of [0, 604801, 1.5]) {
      await assert.rejects(
        () => presignUrl({ ...SUITE, url: 'https://x.amazonaws.com/', expiresSeconds }),
        /expiresSeconds must be a whole number/,
      );
    }
  });
});

describe('SigV4 presigned URL encoding', () => {
  it("percent-encodes what encodeURIComponent leaves (!'()*), spaces as %20, UTF-8 in upper-case hex", async () => {
    const { url } = await presignUrl({
      ...SUITE,
      url: "https://example.amazonaws.com/?b=1&a=x!'()*y&B=a%20b%2Bc/d&u=%C3%BC",
      expiresSeconds: 60,
    });
    const query = url.slice(url.indexOf('?') + 1);
    assert.match(query, /^B=a%20b%2Bc%2Fd&X-Amz-Algorithm=/, 'byte order: upper case first');
    assert.match(query, /&a=x%21%27%28%29%2Ay&b=1&u=%C3%BC&X-Amz-Signature=[0-9a-f]{64}$/);
    assert.match(query, /&X-Amz-Date=20150830T123600Z&/);
  });
});
