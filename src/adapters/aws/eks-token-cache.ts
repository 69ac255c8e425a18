/**
 * A token provider for long-lived callers (a warm Lambda, `serve`): it keeps the current EKS token
 * and makes a new one shortly before the cluster would reject it, so no request ever goes out with
 * a token that expires in flight. Signing is local and cheap, so a refresh needs no network.
 */
import type { AwsCredentials } from './sigv4.js';
import { eksToken, type EksToken } from './eks-token.js';

export interface EksTokenProviderOptions {
  readonly clusterName: string;
  readonly region: string;
  /** A function so rotated credentials (a new role session) are picked up at the next refresh. */
  readonly credentials: AwsCredentials | (() => AwsCredentials);
  /** The clock, passed in so tests control time. */
  readonly now: () => Date;
  /** How long before expiry to refresh. @default 60_000 (one minute) */
  readonly refreshBeforeMs?: number;
  readonly stsEndpoint?: string;
}

export interface EksTokenProvider {
  /** The current token, refreshed when fewer than `refreshBeforeMs` remain. */
  get(): EksToken;
  /** Drop the cached token (after a 401, say), so the next get() signs a new one. */
  invalidate(): void;
}

export function createEksTokenProvider(options: EksTokenProviderOptions): EksTokenProvider {
  const refreshBeforeMs = options.refreshBeforeMs ?? 60_000;
  let current: EksToken | undefined;
  return {
    get() {
      const now = options.now();
      if (current === undefined || now.getTime() >= current.expiresAt.getTime() - refreshBeforeMs) {
        const credentials =
          typeof options.credentials === 'function' ? options.credentials() : options.credentials;
        current = eksToken({
          clusterName: options.clusterName,
          region: options.region,
          credentials,
          now,
          ...(options.stsEndpoint === undefined ? {} : { stsEndpoint: options.stsEndpoint }),
        });
      }
      return current;
    },
    invalidate() {
      current = undefined;
    },
  };
}
