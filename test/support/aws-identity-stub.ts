/**
 * One loopback server that speaks, for the credential chain's tests, each AWS endpoint the standard
 * provider chain and kubemaint call, with their real protocols:
 * - STS `AssumeRoleWithWebIdentity` (awsQuery form POST, XML answer) for IRSA;
 * - STS `AssumeRole`, its SigV4 header checked (who assumed is recorded), for `cluster.eks.roleArn`;
 * - STS `GetCallerIdentity` reached through a presigned URL (the EKS token), its SigV4 checked the way
 *   STS checks it (canonical query without the signature, signed host and x-k8s-aws-id, the clock);
 * - the SSO portal's `GetRoleCredentials` (`GET /federation/credentials`, bearer token header);
 * - the container credentials endpoint (EKS Pod Identity / ECS: `Authorization` from the token file);
 * - IMDSv2 (`PUT /latest/api/token`, then the role and its credentials, the token required);
 * - SSM `GetParameter`, its SigV4 Authorization header checked.
 * Every source hands out its own key pair, so a signed call says which source signed it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { referenceSignature, sha256 } from '../unit/adapters/aws/independent-sigv4.js';

export type Source = 'env' | 'profile' | 'sso' | 'web-identity' | 'container' | 'imds' | 'assumed';

export const KEYS: Record<Source, { accessKeyId: string; secretAccessKey: string }> = {
  env: { accessKeyId: 'AKIAENVENVENVENV0001', secretAccessKey: 'env-secret' },
  profile: { accessKeyId: 'AKIAPROFILEPROFIL002', secretAccessKey: 'profile-secret' },
  sso: { accessKeyId: 'ASIASSOSSOSSOSSOS003', secretAccessKey: 'sso-secret' },
  'web-identity': { accessKeyId: 'ASIAWEBIDWEBIDWEB004', secretAccessKey: 'webid-secret' },
  container: { accessKeyId: 'ASIACONTAINERCONT005', secretAccessKey: 'container-secret' },
  imds: { accessKeyId: 'ASIAIMDSIMDSIMDSI006', secretAccessKey: 'imds-secret' },
  assumed: { accessKeyId: 'ASIAASSUMEDASSUMED07', secretAccessKey: 'assumed-secret' },
};
export const SESSION_TOKEN = 'session-token-of-';
export const WEB_IDENTITY_TOKEN = 'eyJ.web-identity.jwt';
export const SSO_ACCESS_TOKEN = 'sso-access-token';
export const POD_IDENTITY_TOKEN = 'pod-identity-token';
export const IMDS_ROLE = 'kubemaint-node-role';
export const PARAMETER = { name: '/kubemaint/test/value', value: 'parameter-value' };

export interface IdentityStub {
  url: string;
  /** Method and path of every request, in order. */
  calls: string[];
  /** Sources whose credentials signed an SSM call or an EKS token that verified. */
  verified: { api: 'ssm' | 'eks-token' | 'assume-role'; source: Source; cluster?: string }[];
  close(): Promise<void>;
}

const sourceOf = (accessKeyId: string): Source | undefined =>
  (Object.keys(KEYS) as Source[]).find((s) => KEYS[s].accessKeyId === accessKeyId);

const expiration = () => new Date(Date.now() + 3_600_000).toISOString();
/** SigV4's encoding: encodeURIComponent plus !'()*. */
const enc = (v: string) =>
  encodeURIComponent(v).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

export async function startIdentityStub(): Promise<IdentityStub> {
  const calls: string[] = [];
  const verified: IdentityStub['verified'] = [];
  let imdsToken = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://stub');
      calls.push(`${req.method} ${url.pathname}`);
      const send = (status: number, type: string, text: string) =>
        res.writeHead(status, { 'content-type': type }).end(text);
      const json = (status: number, value: unknown) =>
        send(status, 'application/json', JSON.stringify(value));
      const form = new URLSearchParams(body);

      // STS AssumeRoleWithWebIdentity (awsQuery).
      if (req.method === 'POST' && form.get('Action') === 'AssumeRoleWithWebIdentity') {
        if (form.get('WebIdentityToken') !== WEB_IDENTITY_TOKEN)
          return send(
            400,
            'text/xml',
            '<ErrorResponse><Error><Code>InvalidIdentityToken</Code></Error></ErrorResponse>',
          );
        const k = KEYS['web-identity'];
        return send(
          200,
          'text/xml',
          `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult>` +
            `<Credentials><AccessKeyId>${k.accessKeyId}</AccessKeyId><SecretAccessKey>${k.secretAccessKey}</SecretAccessKey>` +
            `<SessionToken>${SESSION_TOKEN}web-identity</SessionToken><Expiration>${expiration()}</Expiration></Credentials>` +
            `<AssumedRoleUser><Arn>${form.get('RoleArn')}/${form.get('RoleSessionName')}</Arn><AssumedRoleId>AROA:x</AssumedRoleId></AssumedRoleUser>` +
            `</AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></AssumeRoleWithWebIdentityResponse>`,
        );
      }
      // STS AssumeRole (awsQuery), signed by the identity that assumes.
      if (req.method === 'POST' && form.get('Action') === 'AssumeRole') {
        const by = headerSignatureSource(req, body);
        if (typeof by !== 'string')
          return send(
            403,
            'text/xml',
            `<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code><Message>${by.error}</Message></Error></ErrorResponse>`,
          );
        verified.push({ api: 'assume-role', source: by });
        const k = KEYS.assumed;
        return send(
          200,
          'text/xml',
          `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>` +
            `<Credentials><AccessKeyId>${k.accessKeyId}</AccessKeyId><SecretAccessKey>${k.secretAccessKey}</SecretAccessKey>` +
            `<SessionToken>${SESSION_TOKEN}assumed</SessionToken><Expiration>${expiration()}</Expiration></Credentials>` +
            `<AssumedRoleUser><Arn>${form.get('RoleArn')}/${form.get('RoleSessionName')}</Arn><AssumedRoleId>AROA:y</AssumedRoleId></AssumedRoleUser>` +
            `</AssumeRoleResult><ResponseMetadata><RequestId>r-2</RequestId></ResponseMetadata></AssumeRoleResponse>`,
        );
      }
      // STS GetCallerIdentity through a presigned URL: the EKS token, verified as STS does.
      if (req.method === 'GET' && url.searchParams.get('Action') === 'GetCallerIdentity') {
        const problem = presignProblem(req, url);
        if (typeof problem === 'string')
          return send(
            403,
            'text/xml',
            `<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code><Message>${problem}</Message></Error></ErrorResponse>`,
          );
        verified.push({ api: 'eks-token', source: problem.source, cluster: problem.cluster });
        return send(
          200,
          'text/xml',
          `<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>arn:aws:sts::111122223333:assumed-role/${problem.source}</Arn></GetCallerIdentityResult></GetCallerIdentityResponse>`,
        );
      }
      // SSO portal GetRoleCredentials.
      if (req.method === 'GET' && url.pathname === '/federation/credentials') {
        if (req.headers['x-amz-sso_bearer_token'] !== SSO_ACCESS_TOKEN)
          return json(401, { message: 'Session token not found or invalid' });
        const k = KEYS.sso;
        return json(200, {
          roleCredentials: {
            ...k,
            sessionToken: `${SESSION_TOKEN}sso`,
            expiration: Date.now() + 3_600_000,
          },
        });
      }
      // Container credentials (EKS Pod Identity agent / ECS).
      if (req.method === 'GET' && url.pathname === '/v1/credentials') {
        if (req.headers.authorization !== POD_IDENTITY_TOKEN)
          return json(401, { message: 'bad token' });
        const k = KEYS.container;
        return json(200, {
          AccessKeyId: k.accessKeyId,
          SecretAccessKey: k.secretAccessKey,
          Token: `${SESSION_TOKEN}container`,
          AccountId: '111122223333',
          Expiration: expiration(),
        });
      }
      // IMDSv2.
      if (req.method === 'PUT' && url.pathname === '/latest/api/token') {
        if (!req.headers['x-aws-ec2-metadata-token-ttl-seconds'])
          return send(400, 'text/plain', '');
        imdsToken = `imds-token-${calls.length}`;
        return send(200, 'text/plain', imdsToken);
      }
      if (url.pathname.startsWith('/latest/meta-data/iam/security-credentials/')) {
        if (!imdsToken || req.headers['x-aws-ec2-metadata-token'] !== imdsToken)
          return send(401, 'text/plain', '');
        const role = url.pathname.slice('/latest/meta-data/iam/security-credentials/'.length);
        if (role === '') return send(200, 'text/plain', IMDS_ROLE);
        if (role !== IMDS_ROLE) return send(404, 'text/plain', '');
        const k = KEYS.imds;
        return json(200, {
          Code: 'Success',
          LastUpdated: new Date().toISOString(),
          Type: 'AWS-HMAC',
          AccessKeyId: k.accessKeyId,
          SecretAccessKey: k.secretAccessKey,
          Token: `${SESSION_TOKEN}imds`,
          Expiration: expiration(),
        });
      }
      // SSM GetParameter, signed in the Authorization header.
      if (req.method === 'POST' && req.headers['x-amz-target'] === 'AmazonSSM.GetParameter') {
        const source = headerSignatureSource(req, body);
        if (typeof source !== 'string')
          return json(400, { __type: 'InvalidSignatureException', message: source.error });
        verified.push({ api: 'ssm', source });
        return json(200, {
          Parameter: { Name: PARAMETER.name, Type: 'SecureString', Value: PARAMETER.value },
        });
      }
      send(404, 'text/plain', 'not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    verified,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

/** What STS checks of a presigned GetCallerIdentity; the signer's source, or why it fails. */
function presignProblem(
  req: IncomingMessage,
  url: URL,
): string | { source: Source; cluster: string } {
  const q = url.searchParams;
  const [accessKeyId, day, region, service] = (q.get('X-Amz-Credential') ?? '').split('/');
  const source = sourceOf(accessKeyId ?? '');
  if (!source) return `unknown access key ${accessKeyId}`;
  const amzDate = q.get('X-Amz-Date') ?? '';
  const signedAt = Date.parse(
    amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  if (!(Math.abs(Date.now() - signedAt) < 15 * 60_000))
    return `X-Amz-Date ${amzDate} is not within 15 minutes`;
  if (!amzDate.startsWith(day ?? '-') || service !== 'sts') return 'bad credential scope';
  if (
    q.get('X-Amz-Security-Token') !== `${SESSION_TOKEN}${source}` &&
    source !== 'env' &&
    source !== 'profile'
  )
    return 'bad session token';
  const names = (q.get('X-Amz-SignedHeaders') ?? '').split(';');
  if (!names.includes('x-k8s-aws-id')) return 'x-k8s-aws-id is not signed';
  const query = [...q.entries()]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .sort()
    .join('&');
  const headers = Object.fromEntries(names.map((n) => [n, String(req.headers[n] ?? '')]));
  const expected = referenceSignature({
    method: 'GET',
    path: url.pathname,
    query,
    headers,
    signedHeaderNames: names,
    payloadHash: sha256(''),
    amzDate,
    region: region ?? '',
    service: 'sts',
    secret: KEYS[source].secretAccessKey,
  });
  if (expected !== q.get('X-Amz-Signature')) return 'signature does not match';
  return { source, cluster: String(req.headers['x-k8s-aws-id']) };
}

/** The source whose key signed a header-signed request, or why the signature fails. */
function headerSignatureSource(req: IncomingMessage, body: string): Source | { error: string } {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(req.headers.authorization ?? ''),
    );
  if (!m) return { error: 'no SigV4 Authorization header' };
  const [, accessKeyId, , region, service, signed, signature] = m;
  const source = sourceOf(accessKeyId!);
  if (!source) return { error: `unknown access key ${accessKeyId}` };
  const names = signed!.split(';');
  const expected = referenceSignature({
    method: 'POST',
    path: '/',
    query: '',
    headers: Object.fromEntries(names.map((n) => [n, String(req.headers[n] ?? '')])),
    signedHeaderNames: names,
    payloadHash: sha256(body),
    amzDate: String(req.headers['x-amz-date']),
    region: region!,
    service: service!,
    secret: KEYS[source].secretAccessKey,
  });
  return expected === signature ? source : { error: 'signature does not match' };
}
