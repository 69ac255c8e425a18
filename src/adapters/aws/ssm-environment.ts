/**
 * Secrets for a Lambda from SSM Parameter Store, read once at cold start. serverless.yml puts only
 * parameter NAMES in the environment (`SLACK_BOT_TOKEN_SSM_PARAMETER=/kubemaint/prod/slack-bot-token`), so
 * packaging needs no AWS access and no secret sits in the template or the function's settings.
 * Every `<NAME>_SSM_PARAMETER` variable becomes `<NAME>` with the parameter's decrypted value, unless `<NAME>`
 * is already set (a local run or a test wins). GetParameter speaks AWS JSON 1.1 with SigV4.
 */
import { KubemaintError } from '../../errors.js';
import { awsErrorDetail, awsPost, type AwsCallOptions } from './aws-call.js';
import { credentialsFrom, regionFromEnv } from './credentials.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface SsmOptions extends AwsCallOptions {
  /** @default `https://ssm.<region>.amazonaws.com/` */
  readonly endpoint?: string;
  /** @default 5_000 */
  readonly timeoutMs?: number;
}

/** A Lambda's SSM settings from its environment: its region and credentials, the endpoint override. */
export function ssmOptionsFromEnv(
  env: Env,
  options: { now?: () => Date; fetch?: typeof fetch } = {},
): SsmOptions {
  return {
    region: regionFromEnv(env),
    credentials: credentialsFrom(env),
    now: options.now ?? (() => new Date()),
    // The AWS SDKs' own variable for a service endpoint (a VPC endpoint; a local stand-in in tests).
    ...(env['AWS_ENDPOINT_URL_SSM'] ? { endpoint: env['AWS_ENDPOINT_URL_SSM'] } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
}

/** Long on purpose: `_SSM` alone would catch AWS_ENDPOINT_URL_SSM, the SDKs' endpoint override. */
export const SSM_SUFFIX = '_SSM_PARAMETER';

/** The `<NAME>_SSM_PARAMETER` variables that still need reading: target variable → parameter name. */
export function ssmReferences(env: Env): Map<string, string> {
  const refs = new Map<string, string>();
  for (const [key, value] of Object.entries(env)) {
    if (!key.endsWith(SSM_SUFFIX) || key === SSM_SUFFIX) continue;
    const target = key.slice(0, -SSM_SUFFIX.length);
    const name = value?.trim() ?? '';
    if (name === '' || (env[target]?.trim() ?? '') !== '') continue;
    refs.set(target, name);
  }
  return refs;
}

/** `env` plus each referenced parameter's value; the parameters are read in parallel. */
export async function resolveSsmEnvironment(
  env: Env,
  options: SsmOptions,
): Promise<Record<string, string | undefined>> {
  const refs = [...ssmReferences(env)];
  const values = await Promise.all(refs.map(([, name]) => getParameter(name, options)));
  const resolved: Record<string, string | undefined> = { ...env };
  refs.forEach(([target], i) => (resolved[target] = values[i]));
  return resolved;
}

/** One parameter's value, decrypted (SecureString) — needs ssm:GetParameter and kms:Decrypt. */
export async function getParameter(name: string, options: SsmOptions): Promise<string> {
  const url = options.endpoint ?? `https://ssm.${options.region}.amazonaws.com/`;
  const body = JSON.stringify({ Name: name, WithDecryption: true });
  const { response, text } = await awsPost(
    {
      url,
      service: 'ssm',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AmazonSSM.GetParameter',
      },
      body,
      what: `reading SSM parameter ${name}`,
    },
    options,
    5_000,
  );
  if (!response.ok) throw ssmError(name, response.status, text);
  let value: unknown;
  try {
    value = (JSON.parse(text) as { Parameter?: { Value?: unknown } }).Parameter?.Value;
  } catch (error) {
    throw new KubemaintError(
      'unexpected',
      `reading SSM parameter ${name}: the answer is not JSON`,
      {
        cause: error,
      },
    );
  }
  if (typeof value !== 'string' || value.trim() === '') {
    throw new KubemaintError('config_invalid', `SSM parameter ${name} is empty`, {
      hint: `aws ssm put-parameter --name ${name} --type SecureString --overwrite --value …`,
    });
  }
  return value;
}

function ssmError(name: string, status: number, text: string): KubemaintError {
  const { type, detail } = awsErrorDetail(`reading SSM parameter ${name}`, status, text);
  if (type === 'ParameterNotFound') {
    return new KubemaintError('config_invalid', detail, {
      hint: `create it: aws ssm put-parameter --name ${name} --type SecureString --value …`,
    });
  }
  if (status === 400 || status === 403) {
    return new KubemaintError('config_invalid', detail, {
      hint: 'the function role needs ssm:GetParameter on it and kms:Decrypt on its key (serverless.yml iam)',
    });
  }
  return new KubemaintError('unexpected', detail);
}
