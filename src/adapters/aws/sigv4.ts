/**
 * AWS Signature Version 4 on node:crypto alone: presigned URLs (query signing, used for the EKS
 * token) and Authorization headers (used for the SSM / Secrets Manager JSON APIs). No AWS SDK, so a
 * Lambda bundle stays small and the steps stay visible: every result carries its canonical request
 * and string to sign, which is what a test compares when a signature does not match.
 *
 * Pure: the caller passes `now`; nothing here reads the clock or the environment.
 * Spec: https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 */
import { createHash, createHmac } from 'node:crypto';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Present for temporary credentials (Lambda's role session); signed as X-Amz-Security-Token. */
  readonly sessionToken?: string | undefined;
}

export interface SigningScope {
  readonly region: string;
  readonly service: string;
}

export interface SignatureParts {
  readonly canonicalRequest: string;
  readonly stringToSign: string;
  readonly signature: string;
}

export const ALGORITHM = 'AWS4-HMAC-SHA256';
/** SHA-256 of the empty string: the payload hash of a GET with no body. */
export const EMPTY_PAYLOAD_HASH = sha256Hex('');
/** S3 presigned URLs sign this literal instead of a payload hash; other services hash the body. */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

export function sha256Hex(data: string): string {
  return createHash('sha256').update(data, 'utf8').digest('hex');
}

/** `20150830T123600Z`: the ISO 8601 basic form SigV4 wants in X-Amz-Date. */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * RFC 3986 encoding with SigV4's rules: everything but `A-Z a-z 0-9 - _ . ~` is percent-encoded with
 * upper-case hex. encodeURIComponent leaves `!'()*` alone, which would break the signature.
 */
export function uriEncode(value: string, encodeSlash = true): string {
  const encoded = encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return encodeSlash ? encoded : encoded.replace(/%2F/g, '/');
}

/** Query parameters sorted by encoded name, then by encoded value (duplicate names keep both). */
export function canonicalQuery(params: readonly (readonly [string, string])[]): string {
  return params
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak === bk ? compare(av, bv) : compare(ak, bk)))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** Byte order, not locale order: `Z` sorts before `a`, as the spec requires. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Header names lower-cased and sorted; values trimmed with inner runs of spaces collapsed. */
export function canonicalHeaders(headers: Readonly<Record<string, string>>): {
  readonly block: string;
  readonly signedHeaders: string;
} {
  const entries = Object.entries(headers)
    .map(([name, value]) => [name.toLowerCase(), value.trim().replace(/\s+/g, ' ')] as const)
    .sort(([a], [b]) => compare(a, b));
  return {
    block: entries.map(([name, value]) => `${name}:${value}\n`).join(''),
    signedHeaders: entries.map(([name]) => name).join(';'),
  };
}

/** The path with each segment encoded once (no dot-segment normalisation: we only sign `/`). */
export function canonicalPath(pathname: string): string {
  if (pathname === '' || pathname === '/') return '/';
  return pathname
    .split('/')
    .map((segment) => uriEncode(decodeURIComponent(segment)))
    .join('/');
}

export function credentialScope(date: Date, scope: SigningScope): string {
  return `${amzDate(date).slice(0, 8)}/${scope.region}/${scope.service}/aws4_request`;
}

/** kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request"). */
export function signingKey(secretAccessKey: string, date: Date, scope: SigningScope): Buffer {
  const kDate = hmac(`AWS4${secretAccessKey}`, amzDate(date).slice(0, 8));
  const kRegion = hmac(kDate, scope.region);
  const kService = hmac(kRegion, scope.service);
  return hmac(kService, 'aws4_request');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** Canonical request → string to sign → signature, the three steps of the spec. */
export function signParts(input: {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly payloadHash: string;
  readonly secretAccessKey: string;
  readonly scope: SigningScope;
  readonly now: Date;
}): SignatureParts & { readonly signedHeaders: string } {
  const { block, signedHeaders } = canonicalHeaders(input.headers);
  const canonicalRequest = [
    input.method.toUpperCase(),
    canonicalPath(input.path),
    input.query,
    block,
    signedHeaders,
    input.payloadHash,
  ].join('\n');
  const stringToSign = [
    ALGORITHM,
    amzDate(input.now),
    credentialScope(input.now, input.scope),
    sha256Hex(canonicalRequest),
  ].join('\n');
  const signature = createHmac('sha256', signingKey(input.secretAccessKey, input.now, input.scope))
    .update(stringToSign, 'utf8')
    .digest('hex');
  return { canonicalRequest, stringToSign, signature, signedHeaders };
}
