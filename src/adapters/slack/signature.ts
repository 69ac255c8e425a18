/**
 * Slack's request signing (v0, reference §1.1): `v0=` + HMAC-SHA256 of `v0:<timestamp>:<body>` under
 * the signing secret, with a timestamp at most five minutes old. Split in two so a front door can
 * refuse most forgeries before it even fetches the secret: what the headers alone can tell (missing,
 * malformed, stale), then the HMAC itself, compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Bolt's window: Slack's own timestamps are never older than this when a request is fresh. */
export const MAX_AGE_SECONDS = 300;

export interface SlackSignedRequest {
  /** `X-Slack-Request-Timestamp`. */
  timestamp: string | undefined;
  /** `X-Slack-Signature`. */
  signature: string | undefined;
  /** The body exactly as it arrived. */
  body: Buffer;
}

/** Why the request cannot be Slack's, from its headers alone; undefined when it may be. */
export function unsignedProblem(request: SlackSignedRequest, now: Date): string | undefined {
  const { timestamp, signature } = request;
  if (!signature) return 'no X-Slack-Signature';
  if (!/^v0=[0-9a-f]{64}$/.test(signature)) return 'X-Slack-Signature is not a v0 signature';
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return 'no valid X-Slack-Request-Timestamp';
  const age = Math.floor(now.getTime() / 1000) - Number(timestamp);
  if (Math.abs(age) > MAX_AGE_SECONDS) return 'X-Slack-Request-Timestamp is older than 5 minutes';
  return undefined;
}

/** True when the signature is the secret's for this timestamp and body. */
export function signedWith(secret: string, request: SlackSignedRequest): boolean {
  const hmac = createHmac('sha256', secret);
  hmac.update(`v0:${request.timestamp ?? ''}:`);
  hmac.update(request.body);
  const expected = Buffer.from(`v0=${hmac.digest('hex')}`);
  const given = Buffer.from(request.signature ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
