/**
 * A token provider for long-lived callers (a warm Lambda, `serve`): it keeps the current EKS token
 * and makes a new one shortly before the cluster would reject it, so no request ever goes out with
 * a token that expires in flight. Signing is local and cheap; the credentials provider (credentials.ts)
 * refreshes temporary credentials itself.
 */
import type { AwsCredentials } from './signer.js';
import { eksToken, type EksToken } from './eks-token.js';

export interface EksTokenProviderOptions {
  readonly clusterName: string;
  readonly region: string;
  /** A function so rotated credentials (a new role session) are picked up at the next refresh. */
  readonly credentials: AwsCredentials | (() => AwsCredentials | Promise<AwsCredentials>);
  /** The clock, passed in so tests control time. */
  readonly now: () => Date;
  /** How long before expiry to refresh. @default 60_000 (one minute) */
  readonly refreshBeforeMs?: number;
  readonly stsEndpoint?: string;
}

export interface EksTokenProvider {
  /** The current token, refreshed when fewer than `refreshBeforeMs` remain. */
  get(): Promise<EksToken>;
  /** Drop the cached token (after a 401, say), so the next get() signs a new one. */
  invalidate(): void;
}

export function createEksTokenProvider(options: EksTokenProviderOptions): EksTokenProvider {
  const refreshBeforeMs = options.refreshBeforeMs ?? 60_000;
  let current: { token: Promise<EksToken>; expiresAt: number } | undefined;
  const sign = async (now: Date): Promise<EksToken> => {
    const credentials =
      typeof options.credentials === 'function' ? await options.credentials() : options.credentials;
    return eksToken({
      clusterName: options.clusterName,
      region: options.region,
      credentials,
      now,
      ...(options.stsEndpoint === undefined ? {} : { stsEndpoint: options.stsEndpoint }),
    });
  };
  return {
    get() {
      const now = options.now();
      if (current === undefined || now.getTime() >= current.expiresAt - refreshBeforeMs) {
        // One signing shared by concurrent callers; a failed one is not kept.
        const token = sign(now);
        const entry = { token, expiresAt: Number.POSITIVE_INFINITY };
        current = entry;
        token.then(
          (made) => (entry.expiresAt = made.expiresAt.getTime()),
          () => current === entry && (current = undefined),
        );
      }
      return current.token;
    },
    invalidate() {
      current = undefined;
    },
  };
}
