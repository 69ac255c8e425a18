/**
 * The real apiserver's OpenAPI documents for kubesim's built-in kinds (documents.gen.ts, made by
 * scripts/fetch-openapi.ts), unpacked on first use: the sim that never serves /openapi never pays
 * for it.
 */
import { brotliDecompressSync } from 'node:zlib';
import { DOCUMENTS } from './documents.gen.js';

export type Json = Record<string, unknown>;

export interface OpenApiDocuments {
  v2Json: Buffer;
  v2Protobuf: Buffer;
  /** By group-version path (`api/v1`, `apis/apps/v1`). */
  v3: Readonly<Record<string, Json>>;
}

let unpacked: OpenApiDocuments | undefined;

export function openApiDocuments(): OpenApiDocuments {
  if (unpacked) return unpacked;
  const bytes = brotliDecompressSync(Buffer.from(DOCUMENTS, 'base64'));
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    parts.push(bytes.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  const [v2Json, v3, v2Protobuf] = parts;
  if (!v2Json || !v3 || !v2Protobuf)
    throw new Error('documents.gen.ts is incomplete: regenerate it');
  unpacked = { v2Json, v2Protobuf, v3: JSON.parse(v3.toString('utf8')) as Record<string, Json> };
  return unpacked;
}
