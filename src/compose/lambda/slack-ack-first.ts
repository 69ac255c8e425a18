/**
 * Which Slack requests the function answers before the app loads (ADR 0018): slash commands and
 * button clicks get an empty 200 at once and run in the asynchronous invocation; anything whose
 * answer must carry content (a modal submission's validation errors, which also decide whether the
 * modal closes) goes through the app in this invocation. Plain parsing, nothing imported: this runs
 * on every cold start before Bolt or the Kubernetes client is loaded.
 */
import type { AwsEvent, AwsResponse } from './slack-handler.js';

/** What the first invocation learnt from the body: enough to answer, and where a late answer goes. */
export interface SlackRequestKind {
  kind: 'command' | 'block_actions' | 'other';
  /** Where a message for the person goes once the app has run (commands and clicks carry one). */
  responseUrl?: string;
}

export function slackRequestKind(event: AwsEvent): SlackRequestKind {
  const text = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8').toString(
    'utf8',
  );
  const form = new URLSearchParams(text);
  if (form.has('command')) return withUrl('command', form.get('response_url'));
  const payload = form.get('payload');
  if (payload === null) return { kind: 'other' };
  try {
    const parsed = JSON.parse(payload) as { type?: unknown; response_url?: unknown };
    if (parsed.type !== 'block_actions') return { kind: 'other' };
    return withUrl(
      'block_actions',
      typeof parsed.response_url === 'string' ? parsed.response_url : null,
    );
  } catch {
    return { kind: 'other' }; // Bolt answers what it cannot parse
  }
}

/** Answered with an empty 200 before the app loads, its work handed to the async invocation. */
export const acksFirst = (request: SlackRequestKind): boolean => request.kind !== 'other';

function withUrl(kind: SlackRequestKind['kind'], url: string | null): SlackRequestKind {
  return url ? { kind, responseUrl: url } : { kind };
}

/**
 * What the replayed listener acked with (a usage error, help), posted to the request's response_url:
 * the first invocation's empty 200 showed nothing. Ephemeral, as an ack's message is.
 */
export async function answerThroughResponseUrl(
  response: AwsResponse,
  event: AwsEvent,
  post: typeof fetch = fetch,
): Promise<void> {
  if (response.statusCode !== 200 || !response.body) return;
  const url = slackRequestKind(event).responseUrl;
  if (!url) return;
  const sent = await post(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(messageOf(response.body)),
    signal: AbortSignal.timeout(5_000),
  });
  if (!sent.ok) throw new Error(`response_url answered ${sent.status}`);
}

/** Bolt's body for `ack(text)` is the text itself; for `ack({...})`, that object as JSON. */
function messageOf(body: string): object {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object') return parsed;
  } catch {
    // plain text
  }
  return { text: body };
}
