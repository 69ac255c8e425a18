/**
 * The Slack function's front door: a request whose Slack signature does not hold is answered 401
 * before the cold path runs (SSM, the config, the EKS connection, Bolt), so forged traffic costs an
 * HMAC, not a start. Headers alone refuse most forgeries without the secret; the rest need only the
 * signing secret, read once per container (signing-secret.ts). Bolt checks the signature again.
 */
import type { Logger } from '../../log.js';
import {
  signedWith,
  unsignedProblem,
  type SlackSignedRequest,
} from '../../adapters/slack/signature.js';
import type { AwsEvent, AwsResponse } from './slack-handler.js';

export interface GateOptions {
  signingSecret: () => Promise<string>;
  log: Logger;
  now?: () => Date;
}

/** The 401 for a request that is not Slack's; undefined lets it through. */
export type Gate = (event: AwsEvent) => Promise<AwsResponse | undefined>;

export function slackSignatureGate(options: GateOptions): Gate {
  return async (event) => {
    const request = signedRequestOf(event);
    const problem =
      unsignedProblem(request, options.now?.() ?? new Date()) ??
      (signedWith(await options.signingSecret(), request) ? undefined : 'the signature is wrong');
    if (problem === undefined) return undefined;
    options.log.warn({ why: problem }, 'refused a request that is not signed by Slack');
    return { statusCode: 401, body: '' };
  };
}

function signedRequestOf(event: AwsEvent): SlackSignedRequest {
  const header = (name: string): string | undefined => {
    for (const [key, value] of Object.entries(event.headers ?? {}))
      if (key.toLowerCase() === name && typeof value === 'string') return value;
    return undefined;
  };
  const body = event.body ?? '';
  return {
    timestamp: header('x-slack-request-timestamp'),
    signature: header('x-slack-signature'),
    body: Buffer.from(body, event.isBase64Encoded ? 'base64' : 'utf8'),
  };
}
