/**
 * How long a rate-limited service asks us to wait. The `Retry-After` header is either delay-seconds
 * or an HTTP date (RFC 9110 §10.2.3); Discord and Telegram also put the seconds in the JSON body.
 */

/** Milliseconds to wait, or undefined when the header is absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1_000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Discord `{retry_after: 1.5}` and Telegram `{parameters: {retry_after: 3}}`, both in seconds. */
export function retryAfterFromBody(body: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const record = parsed as { retry_after?: unknown; parameters?: { retry_after?: unknown } };
  const seconds = record.retry_after ?? record.parameters?.retry_after;
  return typeof seconds === 'number' && seconds >= 0 ? Math.ceil(seconds * 1_000) : undefined;
}
