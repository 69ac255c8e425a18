/**
 * SigV4 query signing ("presigning"): the signature travels in the URL, so whoever holds the URL can
 * make that one request until it expires. The EKS token is exactly such a URL.
 */
import { KubemaintError } from '../../errors.js';
import {
  ALGORITHM,
  EMPTY_PAYLOAD_HASH,
  amzDate,
  canonicalHeaders,
  canonicalQuery,
  credentialScope,
  signParts,
  type AwsCredentials,
  type SignatureParts,
  type SigningScope,
} from './sigv4.js';

export interface PresignInput {
  /** @default 'GET' */
  readonly method?: string;
  readonly url: string | URL;
  /** Headers the request will carry and that the signature must cover, besides `host`. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly credentials: AwsCredentials;
  readonly scope: SigningScope;
  readonly now: Date;
  /** X-Amz-Expires, 1 s to 7 days. */
  readonly expiresSeconds: number;
  /** @default the hash of an empty body; S3 uses UNSIGNED_PAYLOAD instead. */
  readonly payloadHash?: string;
}

export type PresignedUrl = SignatureParts & { readonly url: string };

const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;

export function presignUrl(input: PresignInput): PresignedUrl {
  const url = new URL(input.url);
  if (
    !Number.isInteger(input.expiresSeconds) ||
    input.expiresSeconds < 1 ||
    input.expiresSeconds > MAX_EXPIRES_SECONDS
  ) {
    throw new KubemaintError(
      'usage',
      `presign: expiresSeconds must be a whole number from 1 to ${MAX_EXPIRES_SECONDS}, got ${input.expiresSeconds}`,
    );
  }
  const headers = { ...input.headers, host: url.host };
  const { signedHeaders } = canonicalHeaders(headers);
  const params: [string, string][] = [...url.searchParams.entries()];
  params.push(
    ['X-Amz-Algorithm', ALGORITHM],
    [
      'X-Amz-Credential',
      `${input.credentials.accessKeyId}/${credentialScope(input.now, input.scope)}`,
    ],
    ['X-Amz-Date', amzDate(input.now)],
    ['X-Amz-Expires', String(input.expiresSeconds)],
    ['X-Amz-SignedHeaders', signedHeaders],
  );
  // Temporary credentials: the token is part of the signed query (botocore and the Go SDK do the same).
  if (input.credentials.sessionToken) {
    params.push(['X-Amz-Security-Token', input.credentials.sessionToken]);
  }
  const query = canonicalQuery(params);
  const parts = signParts({
    method: input.method ?? 'GET',
    path: url.pathname,
    query,
    headers,
    payloadHash: input.payloadHash ?? EMPTY_PAYLOAD_HASH,
    secretAccessKey: input.credentials.secretAccessKey,
    scope: input.scope,
    now: input.now,
  });
  return {
    canonicalRequest: parts.canonicalRequest,
    stringToSign: parts.stringToSign,
    signature: parts.signature,
    url: `${url.origin}${url.pathname}?${query}&X-Amz-Signature=${parts.signature}`,
  };
}
