/**
 * Reads a kubeconfig kept in AWS, for clusters that are not EKS (or not in this account): an SSM
 * Parameter Store SecureString (`GetParameter`, WithDecryption) or a Secrets Manager secret
 * (`GetSecretValue`). Both speak the AWS JSON 1.1 protocol: POST `/`, `X-Amz-Target`, a JSON body,
 * SigV4 header signing. The endpoint is overridable (VPC endpoints, tests against a local server).
 */
import { parse } from 'yaml';
import { KubemaintError } from '../../errors.js';
import { awsErrorDetail, awsPost, type AwsCallOptions } from './aws-call.js';

export type KubeconfigRef =
  | { readonly kind: 'ssm'; readonly name: string }
  | { readonly kind: 'secretsmanager'; readonly secretId: string };

export interface KubeconfigSourceOptions extends AwsCallOptions {
  /** @default `https://ssm.<region>.amazonaws.com` or `https://secretsmanager.<region>.amazonaws.com` */
  readonly endpoint?: string;
  /** @default 10_000 */
  readonly timeoutMs?: number;
}

const API = {
  ssm: { service: 'ssm', target: 'AmazonSSM.GetParameter' },
  secretsmanager: { service: 'secretsmanager', target: 'secretsmanager.GetSecretValue' },
} as const;

/** The kubeconfig text, checked to be a YAML mapping with clusters. */
export async function readKubeconfig(
  ref: KubeconfigRef,
  options: KubeconfigSourceOptions,
): Promise<string> {
  const api = API[ref.kind];
  const url = options.endpoint ?? `https://${api.service}.${options.region}.amazonaws.com/`;
  const body = JSON.stringify(
    ref.kind === 'ssm' ? { Name: ref.name, WithDecryption: true } : { SecretId: ref.secretId },
  );
  const where = describe(ref);
  const { response, text } = await awsPost(
    {
      url,
      service: api.service,
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': api.target },
      body,
      what: `reading ${where}`,
    },
    options,
    10_000,
  );
  if (!response.ok) throw awsError(where, response.status, text);
  return checkKubeconfig(where, extractValue(ref, where, text));
}

function describe(ref: KubeconfigRef): string {
  return ref.kind === 'ssm' ? `SSM parameter ${ref.name}` : `secret ${ref.secretId}`;
}

function extractValue(ref: KubeconfigRef, where: string, text: string): string {
  let json: { Parameter?: { Value?: unknown }; SecretString?: unknown; SecretBinary?: unknown };
  try {
    json = JSON.parse(text) as typeof json;
  } catch (error) {
    throw new KubemaintError('unexpected', `reading ${where}: the answer is not JSON`, {
      cause: error,
    });
  }
  const value =
    ref.kind === 'ssm'
      ? json.Parameter?.Value
      : (json.SecretString ??
        (typeof json.SecretBinary === 'string'
          ? Buffer.from(json.SecretBinary, 'base64').toString('utf8')
          : undefined));
  if (typeof value !== 'string' || value.trim() === '') {
    throw new KubemaintError('config_invalid', `${where} is empty`, {
      hint: 'store the whole kubeconfig file as the value',
    });
  }
  return value;
}

function checkKubeconfig(where: string, text: string): string {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new KubemaintError('config_invalid', `${where} is not YAML: ${String(error)}`, {
      hint: 'store the kubeconfig file itself (the output of `kubectl config view --raw --minify`)',
    });
  }
  const clusters = (doc as { clusters?: unknown } | null)?.clusters;
  if (!Array.isArray(clusters) || clusters.length === 0) {
    throw new KubemaintError('config_invalid', `${where} is not a kubeconfig: it has no clusters`, {
      hint: 'store the kubeconfig file itself (the output of `kubectl config view --raw --minify`)',
    });
  }
  return text;
}

/** A failed read, as a typed error with a hint for the common causes. */
function awsError(where: string, status: number, text: string): KubemaintError {
  const { type, detail } = awsErrorDetail(`reading ${where}`, status, text);
  if (type === 'ParameterNotFound' || type === 'ResourceNotFoundException') {
    return new KubemaintError('not_found', detail, { hint: 'check the name and the region' });
  }
  if (status === 403 || /AccessDenied|UnrecognizedClient|InvalidSignature/.test(type)) {
    return new KubemaintError('config_invalid', detail, {
      hint: 'the role needs ssm:GetParameter / secretsmanager:GetSecretValue (and kms:Decrypt) on it',
    });
  }
  return new KubemaintError('unexpected', detail);
}
