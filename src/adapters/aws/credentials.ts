/**
 * AWS credentials, from the standard provider chain every AWS tool resolves (ADR 0039): environment
 * variables, the shared config and credentials files (profiles, SSO, role chains, credential_process),
 * web identity (IRSA: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN), container credentials (EKS Pod
 * Identity, ECS) and instance metadata (IMDSv2), in that order.
 *
 * The first link is read here from the environment passed in (the composition root's, or a test's):
 * that is all a Lambda ever needs, and it keeps the AWS SDK out of the Slack function's acknowledgement
 * (ADR 0018). Only when the environment has no key pair is the SDK's node chain loaded, lazily; it
 * reads the process environment and files itself.
 */
import { KubemaintError } from '../../errors.js';
import type * as Sdk from './credential-chain.js';
import type { AwsCredentials } from './signer.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ResolvedCredentials extends AwsCredentials {
  readonly expiration?: Date | undefined;
  /** Where they came from, for `config check` and `status`: "web identity, role arn:aws:iam::…". */
  readonly source: string;
}

/** Resolves (and, for temporary credentials, refreshes before expiry) on every call. */
export type CredentialProvider = () => Promise<ResolvedCredentials>;

/** The SDK's credential feature ids (`$source`), most specific first, as people name the source. */
const SOURCES: readonly [feature: string, name: (env: Env) => string][] = [
  ['CREDENTIALS_ENV_VARS_STS_WEB_ID_TOKEN', (env) => `web identity, role ${env['AWS_ROLE_ARN']}`],
  ['CREDENTIALS_PROFILE_STS_WEB_ID_TOKEN', (env) => `web identity, profile ${profileOf(env)}`],
  ['CREDENTIALS_STS_ASSUME_ROLE_WEB_ID', (env) => `web identity, role ${env['AWS_ROLE_ARN']}`],
  ['CREDENTIALS_PROFILE_SSO', (env) => `SSO, profile ${profileOf(env)}`],
  ['CREDENTIALS_PROFILE_SSO_LEGACY', (env) => `SSO, profile ${profileOf(env)}`],
  ['CREDENTIALS_SSO', (env) => `SSO, profile ${profileOf(env)}`],
  ['CREDENTIALS_HTTP', () => 'container credentials (EKS Pod Identity or ECS)'],
  ['CREDENTIALS_IMDS', () => 'instance metadata (IMDSv2), the instance role'],
  ['CREDENTIALS_PROFILE_PROCESS', (env) => `credential_process, profile ${profileOf(env)}`],
  ['CREDENTIALS_STS_ASSUME_ROLE', (env) => `assumed role, profile ${profileOf(env)}`],
  ['CREDENTIALS_PROFILE', (env) => `shared credentials file, profile ${profileOf(env)}`],
  ['CREDENTIALS_ENV_VARS', () => 'environment (AWS_ACCESS_KEY_ID)'],
];

/**
 * The chain's last links tag nothing: the ECS fallback of container credentials, and the instance
 * metadata service, which is the one left when no container endpoint is set.
 */
const untagged = (env: Env): string =>
  env['AWS_CONTAINER_CREDENTIALS_FULL_URI'] || env['AWS_CONTAINER_CREDENTIALS_RELATIVE_URI']
    ? 'container credentials (EKS Pod Identity or ECS)'
    : 'instance metadata (IMDSv2), the instance role';

const profileOf = (env: Env): string => env['AWS_PROFILE']?.trim() || 'default';

export interface CredentialOptions {
  /** Assume this role with the chain's credentials (STS AssumeRole), as `cluster.eks.roleArn` asks. */
  readonly roleArn?: string | undefined;
  /** The region of the STS call that assumes it. */
  readonly region?: string | undefined;
}

export function credentialsFrom(env: Env, options: CredentialOptions = {}): CredentialProvider {
  const fromEnv = credentialsInEnv(env);
  // Loaded on first use: the CLI's other commands and the Slack acknowledgement never pay for it.
  let sdk: Promise<typeof Sdk> | undefined;
  const loadSdk = () => (sdk ??= import('./credential-chain.js'));
  let chain: Promise<Sdk.SdkProvider> | undefined;
  const base: CredentialProvider = fromEnv
    ? () => Promise.resolve(fromEnv)
    : async () => {
        const loading = (chain ??= loadSdk().then((m) => m.nodeChain()));
        return described(await resolve(await loading), env);
      };
  const { roleArn, region } = options;
  if (!roleArn) return base;
  let assumed: Promise<Sdk.SdkProvider> | undefined;
  return async () => {
    const loading = (assumed ??= loadSdk().then((m) =>
      m.assumedRole(base, roleArn, region ?? regionFromEnv(env)),
    ));
    const via = (await base()).source;
    const found = described(await resolve(await loading, `assuming ${roleArn}`), env);
    return { ...found, source: `role ${roleArn}, assumed with ${via}` };
  };
}

async function resolve(provider: Sdk.SdkProvider, doing?: string): Promise<SdkCredentials> {
  try {
    return await provider();
  } catch (error) {
    if (doing) {
      throw new KubemaintError(
        'config_invalid',
        `AWS credentials: ${doing} failed: ${messageOf(error)}`,
        {
          hint: 'the role must trust the identity kubemaint runs as (its trust policy) and allow sts:AssumeRole',
          cause: error,
        },
      );
    }
    throw new KubemaintError('config_invalid', `AWS credentials missing: ${messageOf(error)}`, {
      hint:
        'kubemaint reads the standard AWS chain: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile ' +
        '(AWS_PROFILE; `aws sso login` for SSO), IRSA (AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN), ' +
        'EKS Pod Identity or ECS, or the EC2 instance role',
      cause: error,
    });
  }
}

function described(found: SdkCredentials, env: Env): ResolvedCredentials {
  const features = Object.keys(found.$source ?? {});
  const named = SOURCES.find(([feature]) => features.includes(feature));
  return {
    accessKeyId: found.accessKeyId,
    secretAccessKey: found.secretAccessKey,
    ...(found.sessionToken ? { sessionToken: found.sessionToken } : {}),
    ...(found.expiration ? { expiration: found.expiration } : {}),
    source: named ? named[1](env) : untagged(env),
  };
}

type SdkCredentials = Awaited<ReturnType<Sdk.SdkProvider>>;

const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/** The chain's first link: a key pair in the given environment (what Lambda sets from its role). */
function credentialsInEnv(env: Env): ResolvedCredentials | undefined {
  const accessKeyId = env['AWS_ACCESS_KEY_ID']?.trim() ?? '';
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY']?.trim() ?? '';
  if (accessKeyId === '' || secretAccessKey === '') return undefined;
  const sessionToken = env['AWS_SESSION_TOKEN']?.trim();
  return {
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    source: 'environment (AWS_ACCESS_KEY_ID)',
  };
}

/** AWS_REGION (set by Lambda), else AWS_DEFAULT_REGION. */
export function regionFromEnv(env: Env): string {
  const region = env['AWS_REGION']?.trim() || env['AWS_DEFAULT_REGION']?.trim();
  if (!region) {
    throw new KubemaintError('config_invalid', 'AWS region missing: AWS_REGION is not set', {
      hint: 'Lambda sets AWS_REGION; elsewhere export AWS_REGION=eu-west-1 (or your region)',
    });
  }
  return region;
}
