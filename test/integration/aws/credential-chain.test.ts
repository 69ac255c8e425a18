/**
 * The standard AWS credential chain (issue 36, ADR 0039), each source against a loopback stand-in that
 * speaks its real protocol (test/support/aws-identity-stub.ts), the shared files in a temporary HOME:
 * the credentials resolved, named by source, then used to read an SSM parameter (its SigV4 header
 * checked) and to presign an EKS token that authenticates the way STS checks it. Every endpoint is
 * moved to loopback through the SDK's documented settings only; IMDS is disabled unless under test,
 * so nothing leaves the machine.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { credentialsFrom } from '../../../src/adapters/aws/credentials.js';
import { decodeEksToken } from '../../../src/adapters/aws/eks-token.js';
import { createEksTokenProvider } from '../../../src/adapters/aws/eks-token-cache.js';
import { getParameter } from '../../../src/adapters/aws/ssm-environment.js';
import {
  KEYS,
  PARAMETER,
  POD_IDENTITY_TOKEN,
  SSO_ACCESS_TOKEN,
  WEB_IDENTITY_TOKEN,
  startIdentityStub,
  type IdentityStub,
  type Source,
} from '../../support/aws-identity-stub.js';

const REGION = 'eu-west-1';
const ROLE = 'arn:aws:iam::111122223333:role/kubemaint';
const saved = { ...process.env };
let stub: IdentityStub;
let home: string;

before(async () => (stub = await startIdentityStub()));
after(() => stub.close());
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  rmSync(home, { recursive: true, force: true });
});

/** A clean AWS environment: no AWS_* from the machine, an empty HOME, IMDS off, region set. */
function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  home = mkdtempSync(join(tmpdir(), 'kubemaint-aws-home-'));
  for (const key of Object.keys(process.env)) if (key.startsWith('AWS_')) delete process.env[key];
  Object.assign(process.env, {
    HOME: home,
    AWS_REGION: REGION,
    AWS_EC2_METADATA_DISABLED: 'true',
    ...extra,
  });
  return process.env;
}
const file = (path: string, text: string) => {
  mkdirSync(join(home, path, '..'), { recursive: true });
  writeFileSync(join(home, path), text);
  return join(home, path);
};

const cases: { source: Source; named: RegExp; setup: () => NodeJS.ProcessEnv }[] = [
  {
    source: 'env',
    named: /^environment \(AWS_ACCESS_KEY_ID\)$/,
    setup: () =>
      environment({
        AWS_ACCESS_KEY_ID: KEYS.env.accessKeyId,
        AWS_SECRET_ACCESS_KEY: KEYS.env.secretAccessKey,
      }),
  },
  {
    source: 'profile',
    named: /^shared credentials file, profile ops$/,
    setup: () => {
      const env = environment({ AWS_PROFILE: 'ops' });
      file(
        '.aws/credentials',
        `[default]\naws_access_key_id = AKIAWRONGWRONGWRONG9\naws_secret_access_key = wrong\n\n` +
          `[ops]\naws_access_key_id = ${KEYS.profile.accessKeyId}\naws_secret_access_key = ${KEYS.profile.secretAccessKey}\n`,
      );
      return env;
    },
  },
  {
    source: 'sso',
    named: /^SSO, profile dev$/,
    setup: () => {
      const env = environment({ AWS_PROFILE: 'dev', AWS_ENDPOINT_URL_SSO: stub.url });
      const startUrl = 'https://example.awsapps.com/start';
      file(
        '.aws/config',
        `[profile dev]\nsso_start_url = ${startUrl}\nsso_region = ${REGION}\nsso_account_id = 111122223333\n` +
          `sso_role_name = Maintainer\nregion = ${REGION}\n`,
      );
      // What `aws sso login` leaves behind: the portal token, cached under the start URL's SHA-1.
      const key = createHash('sha1').update(startUrl).digest('hex');
      file(
        `.aws/sso/cache/${key}.json`,
        JSON.stringify({
          startUrl,
          region: REGION,
          accessToken: SSO_ACCESS_TOKEN,
          expiresAt: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
        }),
      );
      return env;
    },
  },
  {
    source: 'web-identity',
    named: new RegExp(`^web identity, role ${ROLE}$`),
    setup: () => {
      const env = environment({ AWS_ROLE_ARN: ROLE, AWS_ENDPOINT_URL_STS: stub.url });
      env['AWS_WEB_IDENTITY_TOKEN_FILE'] = file('token', WEB_IDENTITY_TOKEN);
      return env;
    },
  },
  {
    source: 'container',
    named: /^container credentials \(EKS Pod Identity or ECS\)$/,
    setup: () => {
      const env = environment({ AWS_CONTAINER_CREDENTIALS_FULL_URI: `${stub.url}/v1/credentials` });
      env['AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE'] = file(
        'pod-identity-token',
        POD_IDENTITY_TOKEN,
      );
      return env;
    },
  },
  {
    source: 'imds',
    named: /^instance metadata \(IMDSv2\), the instance role$/,
    setup: () =>
      environment({
        AWS_EC2_METADATA_DISABLED: 'false',
        AWS_EC2_METADATA_SERVICE_ENDPOINT: stub.url,
      }),
  },
];

describe('AWS credentials from each source of the standard chain', () => {
  for (const c of cases) {
    it(`${c.source}: resolved and named, then an SSM read and an EKS token signed with them`, async () => {
      const env = c.setup();
      const credentials = credentialsFrom(env);
      const resolved = await credentials();
      assert.equal(resolved.accessKeyId, KEYS[c.source].accessKeyId);
      assert.match(resolved.source, c.named);

      const value = await getParameter(PARAMETER.name, {
        region: REGION,
        credentials,
        now: () => new Date(),
        endpoint: `${stub.url}/`,
      });
      assert.equal(value, PARAMETER.value);

      const tokens = createEksTokenProvider({
        clusterName: 'prod-eu',
        region: REGION,
        credentials,
        now: () => new Date(),
        stsEndpoint: stub.url,
      });
      const { token } = await tokens.get();
      // What the cluster's authenticator does with the token: replay the URL with the cluster header.
      const answer = await fetch(decodeEksToken(token), { headers: { 'x-k8s-aws-id': 'prod-eu' } });
      assert.equal(answer.status, 200, await answer.text());
      assert.deepEqual(stub.verified.slice(-2), [
        { api: 'ssm', source: c.source },
        { api: 'eks-token', source: c.source, cluster: 'prod-eu' },
      ]);
    });
  }

  it("cluster.eks.roleArn: the role assumed with the chain's credentials signs the SSM read and the token", async () => {
    const env = cases.find((c) => c.source === 'web-identity')!.setup();
    const assumedRole = 'arn:aws:iam::444455556666:role/kubemaint-prod';
    const credentials = credentialsFrom(env, { roleArn: assumedRole, region: REGION });
    const resolved = await credentials();
    assert.equal(resolved.accessKeyId, KEYS.assumed.accessKeyId);
    assert.equal(resolved.source, `role ${assumedRole}, assumed with web identity, role ${ROLE}`);
    assert.equal(
      await getParameter(PARAMETER.name, {
        region: REGION,
        credentials,
        now: () => new Date(),
        endpoint: `${stub.url}/`,
      }),
      PARAMETER.value,
    );
    const { token } = await createEksTokenProvider({
      clusterName: 'prod-eu',
      region: REGION,
      credentials,
      now: () => new Date(),
      stsEndpoint: stub.url,
    }).get();
    const answer = await fetch(decodeEksToken(token), { headers: { 'x-k8s-aws-id': 'prod-eu' } });
    assert.equal(answer.status, 200, await answer.text());
    assert.deepEqual(stub.verified.slice(-3), [
      { api: 'assume-role', source: 'web-identity' },
      { api: 'ssm', source: 'assumed' },
      { api: 'eks-token', source: 'assumed', cluster: 'prod-eu' },
    ]);
  });

  it('an EKS token replayed for another cluster does not authenticate', async () => {
    const env = cases[0]!.setup();
    const { token } = await createEksTokenProvider({
      clusterName: 'prod-eu',
      region: REGION,
      credentials: credentialsFrom(env),
      now: () => new Date(),
      stsEndpoint: stub.url,
    }).get();
    const answer = await fetch(decodeEksToken(token), { headers: { 'x-k8s-aws-id': 'other' } });
    assert.equal(answer.status, 403);
    assert.match(await answer.text(), /signature does not match/);
  });

  it('no source at all: a config error that lists where credentials are looked for', async () => {
    const env = environment({});
    await assert.rejects(credentialsFrom(env)(), (error: Error & { hint?: string }) => {
      assert.match(error.message, /^AWS credentials missing: /);
      assert.match(
        error.hint ?? '',
        /AWS_PROFILE.*AWS_WEB_IDENTITY_TOKEN_FILE.*EKS Pod Identity.*instance role/,
      );
      return true;
    });
  });
});

describe('kubemaint config check names the AWS credentials of an EKS cluster', () => {
  const caData = Buffer.from(
    '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  ).toString('base64');
  const eksConfig = (dir: string) => {
    const path = join(dir, 'kubemaint.yaml');
    writeFileSync(
      path,
      `cluster:\n  type: eks\n  eks:\n    name: prod-eu\n    region: ${REGION}\n` +
        `    endpoint: https://ABC.gr7.${REGION}.eks.amazonaws.com\n    caData: ${caData}\n`,
    );
    return path;
  };
  /** The CLI as a child process, with exactly this AWS environment (the child's own chain). */
  const configCheck = (env: NodeJS.ProcessEnv, path: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'config', 'check', path],
        { env: { ...env, KUBEMAINT_CONFIG: '' } },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('web identity: the role, and when the session expires', async () => {
    const env = cases.find((c) => c.source === 'web-identity')!.setup();
    const run = await configCheck(env, eksConfig(home));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^ok: .* is valid \(cluster eks "prod-eu", /);
    assert.match(
      run.stdout,
      new RegExp(
        `\\nAWS credentials: web identity, role ${ROLE}, expire \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\n$`,
      ),
    );
  });
  it('no credentials anywhere: valid config, a warning that says where they are looked for', async () => {
    const env = environment({});
    const run = await configCheck(env, eksConfig(home));
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, /AWS credentials/);
    assert.match(
      run.stderr,
      /warning: AWS credentials missing: .*\(kubemaint reads the standard AWS chain: /,
    );
  });
});
