/**
 * The AWS SDK's side of credentials.ts, in a module of its own so that it is imported only when
 * credentials must come from beyond the environment (a chunk of its own in the bundles): the standard
 * node chain, and a role assumed with STS AssumeRole on top of it (`cluster.eks.roleArn`).
 */
import { fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { memoize } from '@smithy/core/config';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/** What the SDK resolves: the credentials, and the feature ids that say where they came from. */
export type SdkProvider = () => Promise<
  AwsCredentialIdentity & { readonly $source?: Readonly<Record<string, unknown>> }
>;

/** The node chain, memoized by the SDK and refreshed by it shortly before expiry. */
export function nodeChain(): SdkProvider {
  return fromNodeProviderChain();
}

/** Five minutes before expiry, as the SDK's own chain refreshes (credential-provider-node). */
const REFRESH_BEFORE_MS = 5 * 60_000;
const expiring = (c: AwsCredentialIdentity): boolean =>
  c.expiration !== undefined && c.expiration.getTime() - Date.now() < REFRESH_BEFORE_MS;

/**
 * `roleArn` assumed with the base credentials. fromTemporaryCredentials calls STS on every call (an
 * SDK client memoizes it itself): memoized here the way the SDK does, so the session is reused until
 * five minutes before it expires.
 */
export function assumedRole(
  base: AwsCredentialIdentityProvider,
  roleArn: string,
  region: string,
): SdkProvider {
  const assume = fromTemporaryCredentials({
    masterCredentials: base,
    params: { RoleArn: roleArn, RoleSessionName: 'kubemaint' },
    clientConfig: { region },
  });
  return memoize(assume, expiring, (c) => c.expiration !== undefined);
}
