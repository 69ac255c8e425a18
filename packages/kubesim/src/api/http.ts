/**
 * HTTP plumbing shared by the API handlers: reading bodies (JSON, or protobuf as kubectl's typed
 * clients send it), writing objects and Status answers the way kube-apiserver does (protobuf to a
 * client that prefers it, for the kinds that have a message), and the per-request context every
 * handler gets.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { StatusError } from '../types.js';
import { invalidOptions, toStatus } from '../status-errors.js';
import {
  decodeObject,
  encodeObject,
  hasMessage,
  prefersProtobuf,
  PROTOBUF,
  ProtobufError,
} from './protobuf/index.js';
import type { UserInfo } from './identity.js';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  /** `http:<user-agent>` for the audit log (`… as <user>` when not the sim's administrator). */
  actor: string;
  /** Who the request acts as, after impersonation. */
  user: UserInfo;
  /** Sim time. */
  now: () => Date;
}

const MAX_BODY = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) {
      throw new StatusError(
        413,
        'RequestEntityTooLarge',
        'Request entity too large: limit is 3145728',
      );
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export const mediaType = (req: IncomingMessage): string =>
  (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

export const isProtobuf = (req: IncomingMessage): boolean => mediaType(req) === PROTOBUF;

/** A protobuf body as JSON: 415 for a kind without a message (as upstream for custom resources), 400 if it does not decode. */
function decodeProtobuf(body: Buffer, expected?: { apiVersion: string; kind: string }) {
  try {
    return decodeObject(body, expected);
  } catch (error) {
    if (!(error instanceof ProtobufError)) throw error;
    if (error.message.startsWith('no protobuf message')) {
      throw new StatusError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (${error.message})`,
      );
    }
    throw new StatusError(400, 'BadRequest', error.message);
  }
}

/**
 * A boolean query parameter as kube-apiserver decodes one (runtime.Convert_Slice_string_To_bool):
 * absent, "0" and "false" in any case are false; anything else is true, "True" (the Python
 * client's spelling) and even an empty value included.
 */
export function queryFlag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

/** Parses a JSON body; an empty body is `undefined`. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch (error) {
    throw new StatusError(
      400,
      'BadRequest',
      `the request body is not valid JSON: ${(error as Error).message}`,
    );
  }
}

/** The object body of a create or update, JSON or protobuf. */
export async function readObject(ctx: RequestContext): Promise<Record<string, unknown>> {
  if (isProtobuf(ctx.req)) return decodeProtobuf(await readBody(ctx.req));
  const parsed = parseJson(await readBody(ctx.req));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new StatusError(400, 'BadRequest', 'the request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** DeleteOptions from a JSON or protobuf body (kubectl drain's DELETE fallback sends protobuf). */
export async function readDeleteOptions(ctx: RequestContext): Promise<Record<string, unknown>> {
  const body = await readBody(ctx.req);
  if (body.length === 0) return {};
  if (isProtobuf(ctx.req))
    return decodeProtobuf(body, { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions' });
  const parsed = parseJson(body);
  return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = prettyPrint(res.req) ? JSON.stringify(body, null, 2) : JSON.stringify(body);
  sendBytes(res, code, 'application/json', Buffer.from(text));
}

/**
 * kube-apiserver indents its JSON for `?pretty=true` and for curl, Wget and browsers (responsewriters'
 * isPrettyPrint): a shell script that reads a field with grep or sed meets one field per line there.
 */
function prettyPrint(req: ServerResponse['req'] | undefined): boolean {
  if (!req) return false;
  const asked = new URL(req.url ?? '/', 'http://sim').searchParams.get('pretty');
  if (asked) return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(asked);
  return /^(curl|Wget|Mozilla\/5\.0)/.test(req.headers['user-agent'] ?? '');
}

/**
 * kube-apiserver's threshold (responsewriters' defaultGzipThresholdBytes): a body above it goes out
 * gzipped when the client accepts gzip, as every Go, Python and fetch-based client does by default.
 */
const GZIP_ABOVE_BYTES = 128 * 1024;

/** A whole answer, gzipped as kube-apiserver's APIResponseCompression does (level 1, as it). */
function sendBytes(res: ServerResponse, code: number, type: string, bytes: Uint8Array): void {
  const headers: Record<string, string | number> = { 'Content-Type': type };
  let body = bytes;
  if (bytes.length > GZIP_ABOVE_BYTES && acceptsGzip(res.req.headers['accept-encoding'])) {
    body = gzipSync(bytes, { level: 1 });
    headers['Content-Encoding'] = 'gzip';
    headers['Vary'] = 'Accept-Encoding';
  }
  headers['Content-Length'] = body.length;
  res.writeHead(code, headers);
  res.end(body);
}

/** Whether Accept-Encoding lists `gzip` as a token of its own, as negotiateContentEncoding reads it. */
const acceptsGzip = (header: string | undefined): boolean =>
  (header ?? '').split(',').some((coding) => coding.trim() === 'gzip');

/**
 * An API object (or Status): protobuf when the request's Accept prefers it and the kind has a
 * message, JSON otherwise (tables, custom resources, discovery), as kube-apiserver negotiates.
 */
/** Adds `Warning: 299 - "…"` headers after any already set (admission, decoding, deprecation). */
export function addWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length === 0 || res.headersSent) return;
  const previous = res.getHeader('Warning');
  const list =
    previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
  res.setHeader('Warning', [...list, ...warnings.map((w) => `299 - ${JSON.stringify(w)}`)]);
}

export function sendObject(res: ServerResponse, code: number, body: unknown): void {
  const object = body as Record<string, unknown> | null;
  if (object && prefersProtobuf(res.req.headers.accept) && hasMessage(object)) {
    let bytes: Uint8Array | undefined;
    try {
      bytes = encodeObject(object);
    } catch {
      // A value its message cannot carry (a string in an int field): JSON, which the client also reads.
    }
    if (bytes) return sendBytes(res, code, PROTOBUF, bytes);
  }
  sendJson(res, code, body);
}

/** Any error as a `Status` body, with `Retry-After` when the error carries one. */
export function sendError(res: ServerResponse, error: unknown): void {
  const { code, body } = toStatus(error);
  if (error instanceof StatusError && error.retryAfterSeconds !== undefined) {
    res.setHeader('Retry-After', String(error.retryAfterSeconds));
  }
  if (!res.headersSent) sendObject(res, code, body);
  else res.end();
}

export const successStatus = (code: number, details?: Record<string, unknown>) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  ...(details ? { details } : {}),
  code,
});

/** Which options object a verb's query parameters are validated as (it names them in a 422). */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** `dryRun=All` (query or DeleteOptions body); anything else is the apiserver's 422. */
export function dryRunOf(
  query: URLSearchParams,
  bodyDryRun?: unknown,
  kind: OptionsKind = 'CreateOptions',
): boolean {
  const values = [
    ...query.getAll('dryRun'),
    ...(Array.isArray(bodyDryRun) ? (bodyDryRun as unknown[]) : []),
  ];
  if (values.some((v) => v !== 'All')) {
    throw invalidOptions(kind, {
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(values)}: supported values: "All"`,
      field: 'dryRun',
    });
  }
  return values.length > 0;
}
