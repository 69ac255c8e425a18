/**
 * The one place notification senders touch HTTP: applies the test-only base URL, a timeout, and turns
 * every outcome into either a response or a NotifySendError that says whether retrying can help.
 */
import { parseRetryAfter, retryAfterFromBody } from './retry-after.js';
import { NotifySendError, type SendIo } from './types.js';

export interface HttpRequest {
  method?: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  body: string;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
// Statuses a later attempt can get past: timeouts, rate limits, an overloaded or restarting service.
const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

export const jsonHeaders = { 'Content-Type': 'application/json' } as const;

/** Where the request really goes: the service's URL, or the same path on the test receiver. */
export function effectiveUrl(url: string, io: SendIo | undefined): string {
  if (io?.baseUrl === undefined) return url;
  const target = new URL(url);
  const base = new URL(io.baseUrl);
  return `${base.origin}${target.pathname}${target.search}`;
}

/** Send; resolve with 2xx responses only. `what` is the masked target for the error message. */
export async function sendHttp(
  request: HttpRequest,
  io: SendIo | undefined,
  what: string,
): Promise<HttpResponse> {
  const doFetch = io?.fetch ?? fetch;
  let response: Response;
  let body: string;
  try {
    response = await doFetch(effectiveUrl(request.url, io), {
      method: request.method ?? 'POST',
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(io?.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
    body = await response.text();
  } catch (error) {
    throw new NotifySendError(`${what}: ${networkReason(error)}`, {
      retryable: true,
      cause: error,
    });
  }
  if (response.status >= 200 && response.status < 300) return { status: response.status, body };
  const retryAfterMs =
    response.status === 429
      ? (parseRetryAfter(response.headers.get('retry-after'), Date.now()) ??
        retryAfterFromBody(body))
      : undefined;
  throw new NotifySendError(`${what}: HTTP ${response.status}${snippet(body)}`, {
    status: response.status,
    retryable: RETRYABLE.has(response.status),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/** A short, one-line excerpt of a response body for the error message. */
export function snippet(body: string): string {
  const line = body.replace(/\s+/g, ' ').trim();
  if (line === '') return '';
  return ` ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`;
}

function networkReason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  // undici reports "fetch failed" and puts the real reason (ECONNREFUSED, ENOTFOUND …) in the cause.
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return cause?.code ? `${message} (${cause.code})` : message;
}
