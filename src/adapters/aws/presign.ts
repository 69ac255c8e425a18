/**
 * SigV4 query signing ("presigning"): the signature travels in the URL, so whoever holds the URL can
 * make that one request until it expires. The EKS token is exactly such a URL.
 */
import { escapeUri } from '@smithy/util-uri-escape';
import { KubemaintError } from '../../errors.js';
import {
  ExplainedSigner,
  requestOf,
  type AwsCredentials,
  type SignatureParts,
  type SigningScope,
} from './signer.js';

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
  /** @default the hash of an empty body; S3 signs UNSIGNED-PAYLOAD instead. */
  readonly payloadHash?: string;
}

export type PresignedUrl = SignatureParts & { readonly url: string };

const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;
/** Where the signer takes a given payload hash from (kept out of the URL and the signed headers). */
const PAYLOAD_HASH_HEADER = 'x-amz-content-sha256';

export async function presignUrl(input: PresignInput): Promise<PresignedUrl> {
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
  const url = new URL(input.url);
  const given: Record<string, string> =
    input.payloadHash === undefined ? {} : { [PAYLOAD_HASH_HEADER]: input.payloadHash };
  const signer = new ExplainedSigner(input.credentials, input.scope);
  const kept = new Set(Object.keys(given));
  const presigned = await signer.presign(
    requestOf(input.method ?? 'GET', url, { ...input.headers, ...given }),
    {
      signingDate: input.now,
      expiresIn: input.expiresSeconds,
      unhoistableHeaders: kept,
      unsignableHeaders: kept,
    },
  );
  const { 'X-Amz-Signature': signature, ...query } = presigned.query ?? {};
  // Sorted as signed, the signature last, as aws-iam-authenticator and botocore print it.
  const text = Object.entries(query)
    .flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map((v) => [name, v ?? '']),
    )
    .map(([name, value]) => `${escapeUri(name!)}=${escapeUri(value!)}`)
    .sort()
    .join('&');
  return {
    canonicalRequest: signer.canonicalRequest,
    stringToSign: signer.stringToSign,
    signature: String(signature),
    url: `${url.origin}${url.pathname}?${text}&X-Amz-Signature=${String(signature)}`,
  };
}
