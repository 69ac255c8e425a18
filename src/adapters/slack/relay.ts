/**
 * A Slack request relayed from a standby to the replica that acts for its cluster (ADR 0054): the
 * body byte for byte with Slack's own signature headers, so the leader verifies it as Slack's, and
 * the leader's answer brought back for the standby to give Slack. Only a request this replica has
 * verified itself leaves it (signature.ts): a forgery is never sent on.
 */
import { signedWith, unsignedProblem, type SlackSignedRequest } from './signature.js';

/** Who relayed a request here. A relayed request is never relayed again (no loop between replicas). */
export const RELAYED_BY_HEADER = 'x-kubemaint-relayed-by';

/** A request as it reached the HTTP receiver (Bolt's buffered request). */
export interface RawSlackRequest extends SlackSignedRequest {
  contentType: string | undefined;
  /** The identity of the replica that relayed it, when one did. */
  relayedBy: string | undefined;
}

/** What the leader's receiver answered (a 200; anything else is a failed relay). */
export interface LeaderAnswer {
  contentType: string | undefined;
  body: string;
}

export async function relayToLeader(
  url: string,
  request: RawSlackRequest,
  options: { signingSecret: string; identity: string; timeoutMs: number; now?: Date },
): Promise<LeaderAnswer> {
  const problem =
    unsignedProblem(request, options.now ?? new Date()) ??
    (signedWith(options.signingSecret, request) ? undefined : 'the signature is wrong');
  if (problem) throw new Error(`not relayed: ${problem}`);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': request.contentType ?? 'application/x-www-form-urlencoded',
      'x-slack-signature': request.signature!,
      'x-slack-request-timestamp': request.timestamp!,
      [RELAYED_BY_HEADER]: options.identity,
    },
    body: new Uint8Array(request.body),
    redirect: 'error',
    signal: AbortSignal.timeout(Math.max(1, Math.floor(options.timeoutMs))),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`the leader answered ${response.status}`);
  return { contentType: response.headers.get('content-type') ?? undefined, body };
}

/** The leader's answer as Bolt's `ack` takes it: nothing, a JSON object, or text. */
export function ackBodyOf(answer: LeaderAnswer): unknown {
  if (answer.body === '') return undefined;
  if (answer.contentType?.startsWith('application/json')) return JSON.parse(answer.body) as unknown;
  return answer.body;
}
