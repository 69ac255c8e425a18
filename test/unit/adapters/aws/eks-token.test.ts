import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  EKS_TOKEN_PREFIX,
  decodeEksToken,
  eksToken,
  type EksToken,
} from '../../../../src/adapters/aws/eks-token.js';
import { createEksTokenProvider } from '../../../../src/adapters/aws/eks-token-cache.js';
import { regionFromEnv } from '../../../../src/adapters/aws/credentials.js';
import { KubemaintError } from '../../../../src/errors.js';
import { referenceSignature } from './independent-sigv4.js';

describe('eksToken', () => {
  it('reproduces a token made by heptio-authenticator-aws (the ancestor of aws-iam-authenticator)', async () => {
    // Vector: keys, cluster id and time that heptio-authenticator-aws used, with the URL it printed,
    // as recorded in pplu/AWSv4Signer t/03_eks.t. That tool signed for the global endpoint.
    const { token } = await eksToken({
      clusterName: 'scrumptious-wardrobe-1531912697',
      region: 'us-east-1',
      credentials: {
        accessKeyId: 'AKIAKIAKIAKIAKIAKIAK',
        secretAccessKey: '1111111111111111111111111111111111111111',
      },
      now: new Date('2018-07-23T14:57:07Z'),
      stsEndpoint: 'https://sts.amazonaws.com',
    });
    assert.equal(
      decodeEksToken(token),
      'https://sts.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256' +
        '&X-Amz-Credential=AKIAKIAKIAKIAKIAKIAK%2F20180723%2Fus-east-1%2Fsts%2Faws4_request&X-Amz-Date=20180723T145707Z' +
        '&X-Amz-Expires=60&X-Amz-SignedHeaders=host%3Bx-k8s-aws-id' +
        '&X-Amz-Signature=7a9107b9da0017ba3c84c6331d1aed6afe1de75da6c39ea786c01c31141052a8',
    );
  });

  const now = new Date('2026-11-22T10:00:00Z');
  const credentials = {
    accessKeyId: 'ASIAEXAMPLEEXAMPLE00',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE/token+with=chars',
  };
  let made: EksToken;
  let url: URL;
  before(async () => {
    made = await eksToken({ clusterName: 'prod-eu', region: 'eu-west-1', credentials, now });
    url = new URL(decodeEksToken(made.token));
  });

  it('is k8s-aws-v1. plus base64url without padding', () => {
    assert.ok(made.token.startsWith(EKS_TOKEN_PREFIX));
    assert.match(made.token.slice(EKS_TOKEN_PREFIX.length), /^[A-Za-z0-9_-]+$/);
  });
  it('signs a GetCallerIdentity against the regional STS endpoint', () => {
    assert.equal(url.origin, 'https://sts.eu-west-1.amazonaws.com');
    assert.equal(url.pathname, '/');
    assert.equal(url.searchParams.get('Action'), 'GetCallerIdentity');
    assert.equal(url.searchParams.get('Version'), '2011-06-15');
  });
  it('covers the x-k8s-aws-id header, expires the URL in 60 s and carries the session token', () => {
    assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'host;x-k8s-aws-id');
    assert.equal(url.searchParams.get('X-Amz-Expires'), '60');
    assert.equal(url.searchParams.get('X-Amz-Security-Token'), credentials.sessionToken);
    assert.equal(url.searchParams.get('X-Amz-Date'), '20261122T100000Z');
  });
  it('has a signature the independent implementation agrees with', () => {
    const query = url.search
      .slice(1)
      .split('&')
      .filter((p) => !p.startsWith('X-Amz-Signature='))
      .join('&');
    const expected = referenceSignature({
      method: 'GET',
      path: '/',
      query,
      headers: { host: 'sts.eu-west-1.amazonaws.com', 'x-k8s-aws-id': 'prod-eu' },
      signedHeaderNames: ['host', 'x-k8s-aws-id'],
      payloadHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      amzDate: '20261122T100000Z',
      region: 'eu-west-1',
      service: 'sts',
      secret: credentials.secretAccessKey,
    });
    assert.equal(url.searchParams.get('X-Amz-Signature'), expected);
  });
  it('expires 15 minutes after it was made', () => {
    assert.equal(made.expiresAt.toISOString(), '2026-11-22T10:15:00.000Z');
  });
  it('uses the .cn endpoint in China regions', async () => {
    const cn = await eksToken({ clusterName: 'c', region: 'cn-north-1', credentials, now });
    assert.equal(new URL(decodeEksToken(cn.token)).host, 'sts.cn-north-1.amazonaws.com.cn');
  });
  const bad = [
    {
      clusterName: 'has space',
      region: 'eu-west-1',
      error: /cluster name "has space" is not valid/,
    },
    { clusterName: 'ok', region: 'Europe', error: /region "Europe" is not valid/ },
  ];
  for (const b of bad) {
    it(`refuses ${b.clusterName} in ${b.region} with a config error`, async () => {
      await assert.rejects(
        () => eksToken({ clusterName: b.clusterName, region: b.region, credentials, now }),
        (e: unknown) =>
          e instanceof KubemaintError && e.code === 'config_invalid' && b.error.test(e.message),
      );
    });
  }
});

describe('createEksTokenProvider', () => {
  function setup() {
    let clock = new Date('2026-11-22T10:00:00Z');
    let signedWith = 0;
    const provider = createEksTokenProvider({
      clusterName: 'prod',
      region: 'eu-west-1',
      credentials: () => {
        signedWith += 1;
        return { accessKeyId: `AKID${signedWith}`, secretAccessKey: 'secret' };
      },
      now: () => clock,
    });
    return {
      provider,
      advance: (ms: number) => (clock = new Date(clock.getTime() + ms)),
      signings: () => signedWith,
    };
  }

  it('keeps the same token while more than a minute of validity remains', async () => {
    const { provider, advance, signings } = setup();
    const first = await provider.get();
    advance(13 * 60_000 + 59_000);
    assert.equal(await provider.get(), first);
    assert.equal(signings(), 1);
  });
  it('signs a new token one minute before expiry, with fresh credentials', async () => {
    const { provider, advance, signings } = setup();
    const first = await provider.get();
    advance(14 * 60_000);
    const second = await provider.get();
    assert.notEqual(second.token, first.token);
    assert.equal(signings(), 2);
    assert.match(decodeEksToken(second.token), /X-Amz-Credential=AKID2%2F/);
    assert.equal(second.expiresAt.toISOString(), '2026-11-22T10:29:00.000Z');
  });
  it('shares one signing between callers that ask at once', async () => {
    const { provider, signings } = setup();
    const [a, b] = await Promise.all([provider.get(), provider.get()]);
    assert.equal(a, b);
    assert.equal(signings(), 1);
  });
  it('signs anew after invalidate()', async () => {
    const { provider, signings } = setup();
    await provider.get();
    provider.invalidate();
    await provider.get();
    assert.equal(signings(), 2);
  });
});

describe('the AWS region', () => {
  it('reads the region from AWS_REGION, then AWS_DEFAULT_REGION', () => {
    assert.equal(
      regionFromEnv({ AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-east-1' }),
      'eu-west-1',
    );
    assert.equal(regionFromEnv({ AWS_DEFAULT_REGION: 'us-east-1' }), 'us-east-1');
    assert.throws(() => regionFromEnv({}), /AWS_REGION is not set/);
  });
});
