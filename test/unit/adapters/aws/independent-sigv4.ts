/**
 * A second, deliberately naive SigV4 implementation written straight from the spec's formulas with
 * node:crypto only, sharing no code with src/adapters/aws. Tests use it to recompute what a server
 * would check, so a bug in the shared helpers cannot hide behind itself.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 */
import { createHash, createHmac } from 'node:crypto';

const hex = (data: string): string => createHash('sha256').update(data).digest('hex');
const mac = (key: string | Buffer, data: string): Buffer =>
  createHmac('sha256', key).update(data).digest();

export interface ReferenceInput {
  method: string;
  /** Already-canonical path and query (the callers only use simple, unreserved values). */
  path: string;
  query: string;
  /** Lower-case names; values as sent. */
  headers: Record<string, string>;
  signedHeaderNames: string[];
  payloadHash: string;
  amzDate: string;
  region: string;
  service: string;
  secret: string;
}

export function referenceSignature(input: ReferenceInput): string {
  const names = [...input.signedHeaderNames].sort();
  const canonicalHeaders = names.map((n) => `${n}:${(input.headers[n] ?? '').trim()}\n`).join('');
  const canonicalRequest = `${input.method}\n${input.path}\n${input.query}\n${canonicalHeaders}\n${names.join(';')}\n${input.payloadHash}`;
  const day = input.amzDate.slice(0, 8);
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const toSign = `AWS4-HMAC-SHA256\n${input.amzDate}\n${scope}\n${hex(canonicalRequest)}`;
  const key = mac(
    mac(mac(mac(`AWS4${input.secret}`, day), input.region), input.service),
    'aws4_request',
  );
  return createHmac('sha256', key).update(toSign).digest('hex');
}

export const sha256 = hex;
