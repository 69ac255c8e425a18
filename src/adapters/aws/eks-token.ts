/**
 * The EKS bearer token, made the way aws-iam-authenticator makes it (pkg/token/token.go), presigned
 * by AWS's signer (presign.ts): a presigned STS GetCallerIdentity URL whose signature also covers the
 * `x-k8s-aws-id: <cluster>` header, base64url-encoded without padding behind `k8s-aws-v1.`.
 * The cluster's authenticator replays the URL against STS to learn who signed it.
 *
 * Pure: the caller passes `now` and the credentials.
 */
import { KubemaintError } from '../../errors.js';
import { presignUrl } from './presign.js';
import type { AwsCredentials } from './signer.js';

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** STS ignores X-Amz-Expires for this call; 60 is what aws-iam-authenticator sends. */
const PRESIGN_EXPIRES_SECONDS = 60;
/** The authenticator accepts a token for 15 minutes after its X-Amz-Date. */
export const EKS_TOKEN_LIFETIME_MS = 15 * 60_000;

export interface EksTokenInput {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly now: Date;
  /**
   * STS endpoint to sign for. @default `https://sts.<region>.amazonaws.com` (`.amazonaws.com.cn` in
   * China regions). The regional endpoint is what current authenticators expect.
   */
  readonly stsEndpoint?: string;
}

export interface EksToken {
  readonly token: string;
  /** When the cluster stops accepting the token (X-Amz-Date + 15 min). Refresh before this. */
  readonly expiresAt: Date;
}

const REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/;
/** EKS cluster names: 1–100 characters, alphanumeric first, then alphanumerics, `-` and `_`. */
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/;

export async function eksToken(input: EksTokenInput): Promise<EksToken> {
  if (!CLUSTER_NAME.test(input.clusterName)) {
    throw new KubemaintError(
      'config_invalid',
      `EKS cluster name "${input.clusterName}" is not valid`,
      {
        hint: 'use the cluster name as `aws eks list-clusters` prints it (letters, digits, - and _)',
      },
    );
  }
  if (!REGION.test(input.region)) {
    throw new KubemaintError('config_invalid', `AWS region "${input.region}" is not valid`, {
      hint: 'use a region code such as eu-west-1',
    });
  }
  const endpoint = input.stsEndpoint ?? defaultStsEndpoint(input.region);
  const presigned = await presignUrl({
    url: `${endpoint.replace(/\/+$/, '')}/?Action=GetCallerIdentity&Version=2011-06-15`,
    headers: { [CLUSTER_ID_HEADER]: input.clusterName },
    credentials: input.credentials,
    scope: { region: input.region, service: 'sts' },
    now: input.now,
    expiresSeconds: PRESIGN_EXPIRES_SECONDS,
  });
  return {
    token: EKS_TOKEN_PREFIX + Buffer.from(presigned.url, 'utf8').toString('base64url'),
    expiresAt: new Date(input.now.getTime() + EKS_TOKEN_LIFETIME_MS),
  };
}

export function defaultStsEndpoint(region: string): string {
  return `https://sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

/** The presigned URL inside a token (for tests and for debugging a rejected token). */
export function decodeEksToken(token: string): string {
  if (!token.startsWith(EKS_TOKEN_PREFIX)) {
    throw new KubemaintError(
      'usage',
      `not an EKS token: it does not start with ${EKS_TOKEN_PREFIX}`,
    );
  }
  return Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString('utf8');
}
