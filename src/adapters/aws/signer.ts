/**
 * SigV4 by AWS's own signer (`@smithy/signature-v4`, the one inside the SDK v3; ADR 0039), for
 * header-signed calls (sign-request.ts) and presigned URLs (presign.ts, the EKS token). Each
 * signature keeps the canonical request and string to sign it was made from: what a test compares
 * against AWS's published vectors, and what to read when a server says the signature does not match.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HeaderBag, HttpRequest } from '@smithy/types';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Present for temporary credentials (a role session); signed as X-Amz-Security-Token. */
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

/** The SDK's signer, remembering the two intermediate texts of the one signature it makes. */
export class ExplainedSigner extends SignatureV4 {
  canonicalRequest = '';
  stringToSign = '';

  constructor(credentials: AwsCredentials, scope: SigningScope) {
    // applyChecksum off: the JSON APIs take the payload hash in the signature alone, and AWS's
    // published vectors sign no x-amz-content-sha256 header.
    super({
      credentials,
      region: scope.region,
      service: scope.service,
      sha256: Hash.bind(null, 'sha256'),
      applyChecksum: false,
    });
  }

  protected override createCanonicalRequest(
    request: HttpRequest,
    canonicalHeaders: HeaderBag,
    payloadHash: string,
  ): string {
    this.canonicalRequest = super.createCanonicalRequest(request, canonicalHeaders, payloadHash);
    return this.canonicalRequest;
  }

  protected override async createStringToSign(
    longDate: string,
    credentialScope: string,
    canonicalRequest: string,
    algorithmIdentifier: string,
  ): Promise<string> {
    this.stringToSign = await super.createStringToSign(
      longDate,
      credentialScope,
      canonicalRequest,
      algorithmIdentifier,
    );
    return this.stringToSign;
  }
}

/** The parts of a URL the signer reads: host, path and query as a record (repeated names kept). */
export function requestOf(
  method: string,
  url: URL,
  headers: Readonly<Record<string, string>>,
  body?: string,
): HttpRequest {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return {
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers: { ...headers, host: url.host },
    ...(body === undefined ? {} : { body }),
  };
}
