/**
 * SigV4 header signing: adds X-Amz-Date (and X-Amz-Security-Token) and the Authorization header to
 * a request with a body, as the AWS JSON protocols (SSM, Secrets Manager) expect.
 */
import {
  ALGORITHM,
  amzDate,
  canonicalQuery,
  credentialScope,
  sha256Hex,
  signParts,
  type AwsCredentials,
  type SignatureParts,
  type SigningScope,
} from './sigv4.js';

export interface SignRequestInput {
  readonly method: string;
  readonly url: string | URL;
  /** Headers to send and sign (content-type, x-amz-target, …); `host` is taken from the URL. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly credentials: AwsCredentials;
  readonly scope: SigningScope;
  readonly now: Date;
}

export type SignedRequest = SignatureParts & {
  readonly authorization: string;
  /** What to send: the input headers plus x-amz-date, x-amz-security-token and authorization. */
  readonly headers: Readonly<Record<string, string>>;
};

export function signRequest(input: SignRequestInput): SignedRequest {
  const url = new URL(input.url);
  const sent: Record<string, string> = { ...input.headers, 'x-amz-date': amzDate(input.now) };
  if (input.credentials.sessionToken) {
    sent['x-amz-security-token'] = input.credentials.sessionToken;
  }
  // host is signed but not returned: fetch derives the Host header from the URL itself.
  const parts = signParts({
    method: input.method,
    path: url.pathname,
    query: canonicalQuery([...url.searchParams.entries()]),
    headers: { ...sent, host: url.host },
    payloadHash: sha256Hex(input.body),
    secretAccessKey: input.credentials.secretAccessKey,
    scope: input.scope,
    now: input.now,
  });
  const authorization =
    `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${credentialScope(input.now, input.scope)}, ` +
    `SignedHeaders=${parts.signedHeaders}, Signature=${parts.signature}`;
  return {
    canonicalRequest: parts.canonicalRequest,
    stringToSign: parts.stringToSign,
    signature: parts.signature,
    authorization,
    headers: { ...sent, authorization },
  };
}
