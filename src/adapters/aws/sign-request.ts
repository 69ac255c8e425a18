/**
 * SigV4 header signing: adds X-Amz-Date (and X-Amz-Security-Token) and the Authorization header to
 * a request with a body, as the AWS JSON protocols (SSM, Secrets Manager, Lambda Invoke) expect.
 */
import {
  ExplainedSigner,
  requestOf,
  type AwsCredentials,
  type SignatureParts,
  type SigningScope,
} from './signer.js';

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

export async function signRequest(input: SignRequestInput): Promise<SignedRequest> {
  const signer = new ExplainedSigner(input.credentials, input.scope);
  const request = requestOf(input.method, new URL(input.url), input.headers, input.body);
  const signed = await signer.sign(request, { signingDate: input.now });
  // host is signed but not returned: the HTTP client derives the Host header from the URL itself.
  const { host: _host, ...headers } = signed.headers;
  const authorization = headers['authorization'] ?? '';
  return {
    canonicalRequest: signer.canonicalRequest,
    stringToSign: signer.stringToSign,
    signature: /Signature=([0-9a-f]+)/.exec(authorization)?.[1] ?? '',
    authorization,
    headers,
  };
}
