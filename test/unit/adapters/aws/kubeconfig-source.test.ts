import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readKubeconfig } from '../../../../src/adapters/aws/kubeconfig-source.js';
import { KubemaintError } from '../../../../src/errors.js';
import { referenceSignature, sha256 } from './independent-sigv4.js';

const KUBECONFIG = [
  'apiVersion: v1',
  'kind: Config',
  'clusters:',
  '- name: onprem',
  '  cluster: { server: "https://10.0.0.1:6443" }',
  'users: [{ name: u, user: { token: abc } }]',
  'contexts: [{ name: c, context: { cluster: onprem, user: u } }]',
  'current-context: c',
].join('\n');

const credentials = {
  accessKeyId: 'ASIATESTTESTTEST0000',
  secretAccessKey: 'test/secret+key',
  sessionToken: 'session-token-value',
};
const now = () => new Date('2026-11-22T10:00:00Z');

interface Seen {
  target: string | undefined;
  contentType: string | undefined;
  body: unknown;
  signatureValid: boolean;
}

/** A stand-in for SSM and Secrets Manager that checks the signature the way AWS would. */
function fakeAws(answer: (target: string, body: Record<string, unknown>) => [number, unknown]) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const target = req.headers['x-amz-target'] as string | undefined;
      const body = JSON.parse(raw) as Record<string, unknown>;
      seen.push({
        target,
        contentType: req.headers['content-type'],
        body,
        signatureValid: verify(req, raw),
      });
      const [status, payload] = answer(target ?? '', body);
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
    });
  });
  return { server, seen };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

function verify(req: IncomingMessage, raw: string): boolean {
  const match = AUTH.exec(req.headers.authorization ?? '');
  if (!match) return false;
  const [, keyId, , region, service, signed, signature] = match;
  const names = signed!.split(';');
  for (const required of [
    'host',
    'x-amz-date',
    'x-amz-target',
    'content-type',
    'x-amz-security-token',
  ]) {
    if (!names.includes(required)) return false;
  }
  const headers: Record<string, string> = {};
  for (const n of names) headers[n] = String(req.headers[n] ?? '');
  const expected = referenceSignature({
    method: req.method ?? '',
    path: '/',
    query: '',
    headers,
    signedHeaderNames: names,
    payloadHash: sha256(raw),
    amzDate: headers['x-amz-date']!,
    region: region!,
    service: service!,
    secret: credentials.secretAccessKey,
  });
  return keyId === credentials.accessKeyId && signature === expected;
}

describe('readKubeconfig', () => {
  const aws = fakeAws((target, body) => {
    if (target === 'AmazonSSM.GetParameter') {
      if (body.Name === '/kubemaint/missing') {
        return [400, { __type: 'ParameterNotFound', message: 'not here' }];
      }
      return [200, { Parameter: { Name: body.Name, Type: 'SecureString', Value: KUBECONFIG } }];
    }
    if (target === 'secretsmanager.GetSecretValue') {
      if (body.SecretId === 'denied') {
        return [400, { __type: 'AccessDeniedException', Message: 'no' }];
      }
      if (body.SecretId === 'binary') {
        return [200, { SecretBinary: Buffer.from(KUBECONFIG).toString('base64') }];
      }
      if (body.SecretId === 'not-a-kubeconfig') return [200, { SecretString: 'hello: world' }];
      return [200, { ARN: 'arn:x', SecretString: KUBECONFIG }];
    }
    return [400, { __type: 'UnknownOperationException' }];
  });
  let endpoint = '';
  before(async () => {
    await new Promise<void>((resolve) => aws.server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(aws.server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => aws.server.close(() => resolve())));
  const options = () => ({ region: 'eu-west-1', credentials, now, endpoint });

  it('reads an SSM SecureString with GetParameter and WithDecryption, correctly signed', async () => {
    const text = await readKubeconfig({ kind: 'ssm', name: '/kubemaint/onprem' }, options());
    assert.equal(text, KUBECONFIG);
    const last = aws.seen.at(-1)!;
    assert.equal(last.target, 'AmazonSSM.GetParameter');
    assert.equal(last.contentType, 'application/x-amz-json-1.1');
    assert.deepEqual(last.body, { Name: '/kubemaint/onprem', WithDecryption: true });
    assert.equal(last.signatureValid, true);
  });

  it('reads a Secrets Manager secret with GetSecretValue, correctly signed', async () => {
    const text = await readKubeconfig({ kind: 'secretsmanager', secretId: 'onprem' }, options());
    assert.equal(text, KUBECONFIG);
    const last = aws.seen.at(-1)!;
    assert.equal(last.target, 'secretsmanager.GetSecretValue');
    assert.deepEqual(last.body, { SecretId: 'onprem' });
    assert.equal(last.signatureValid, true);
  });

  it('decodes a binary secret', async () => {
    assert.equal(
      await readKubeconfig({ kind: 'secretsmanager', secretId: 'binary' }, options()),
      KUBECONFIG,
    );
  });

  const failures = [
    {
      ref: { kind: 'ssm', name: '/kubemaint/missing' } as const,
      code: 'not_found',
      message: /SSM parameter \/kubemaint\/missing: ParameterNotFound \(not here\)/,
    },
    {
      ref: { kind: 'secretsmanager', secretId: 'denied' } as const,
      code: 'config_invalid',
      message: /secret denied: AccessDeniedException/,
    },
    {
      ref: { kind: 'secretsmanager', secretId: 'not-a-kubeconfig' } as const,
      code: 'config_invalid',
      message: /is not a kubeconfig: it has no clusters/,
    },
  ];
  for (const f of failures) {
    it(`fails with ${f.code} for ${JSON.stringify(f.ref)}`, async () => {
      await assert.rejects(
        readKubeconfig(f.ref, options()),
        (e: unknown) =>
          e instanceof KubemaintError && e.code === f.code && f.message.test(e.message),
      );
    });
  }

  it('the fake notices a request signed with another secret (so the check can fail)', async () => {
    await readKubeconfig(
      { kind: 'ssm', name: '/kubemaint/onprem' },
      { ...options(), credentials: { ...credentials, secretAccessKey: 'another-secret' } },
    );
    assert.equal(aws.seen.at(-1)!.signatureValid, false);
  });
});
