/**
 * One signed AWS API call over HTTPS (SigV4 by AWS's signer, signer.ts), and AWS's JSON error shape read
 * back. Lambda Invoke, SSM GetParameter and Secrets Manager all go through here, so timeouts and
 * network errors read the same everywhere. Sent with node:http(s), not fetch: the Slack function
 * makes two of these calls before it acknowledges (ADR 0018), and Node loads its fetch (undici) on
 * first use, about 100 ms of a cold start; node:http is already in memory.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { KubemaintError } from '../../errors.js';
import { signRequest } from './sign-request.js';
import type { AwsCredentials } from './signer.js';

/** What every AWS API caller takes; each API's options add its endpoint and timeout defaults. */
export interface AwsCallOptions {
  readonly region: string;
  /** Fixed credentials, or a provider (credentials.ts) asked before each call, so a rotated role session is used. */
  readonly credentials: AwsCredentials | (() => Promise<AwsCredentials>);
  readonly now: () => Date;
  /** In place of the public regional endpoint: a VPC endpoint, or a local server in tests. */
  readonly endpoint?: string;
  /** Send with this instead of node:http(s) (tests). */
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

/** What callers read of an answer (a fetch Response has it too). */
export interface AwsResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
}

export interface AwsCall {
  url: string;
  service: string;
  headers: Record<string, string>;
  body: string;
  /** What the call does, for error messages: "reading SSM parameter /kubemaint/x". */
  what: string;
}

export async function awsPost(
  call: AwsCall,
  options: AwsCallOptions,
  defaultTimeoutMs: number,
): Promise<{ response: AwsResponse; text: string }> {
  const signed = await signRequest({
    method: 'POST',
    url: call.url,
    headers: call.headers,
    body: call.body,
    credentials:
      typeof options.credentials === 'function' ? await options.credentials() : options.credentials,
    scope: { region: options.region, service: call.service },
    now: options.now(),
  });
  const sent = {
    method: 'POST',
    headers: signed.headers,
    body: call.body,
    signal: AbortSignal.timeout(options.timeoutMs ?? defaultTimeoutMs),
  };
  try {
    if (options.fetch) {
      const response = await options.fetch(call.url, sent);
      return { response, text: await response.text() };
    }
    return await post(call.url, sent);
  } catch (error) {
    throw new KubemaintError('unexpected', `${call.what}: ${String(error)}`, { cause: error });
  }
}

function post(
  url: string,
  sent: { headers: Record<string, string>; body: string; signal: AbortSignal },
): Promise<{ response: AwsResponse; text: string }> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers: sent.headers, signal: sent.signal }, (res) => {
      readAnswer(res).then(resolve, reject);
    });
    req.on('error', reject);
    req.end(sent.body);
  });
}

async function readAnswer(res: IncomingMessage): Promise<{ response: AwsResponse; text: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const status = res.statusCode ?? 0;
  const header = (name: string): string | null => {
    const value = res.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  };
  return {
    response: { ok: status >= 200 && status < 300, status, headers: { get: header } },
    text: Buffer.concat(chunks).toString('utf8'),
  };
}

/** AWS JSON errors carry `__type` (sometimes `prefix#Name`) and `message`/`Message`. */
export function awsErrorDetail(
  what: string,
  status: number,
  text: string,
  fallbackType = `HTTP ${status}`,
): { type: string; detail: string } {
  let type = fallbackType;
  let message: string;
  try {
    const json = JSON.parse(text) as { __type?: string; message?: string; Message?: string };
    type = json.__type?.split('#').pop() ?? type;
    message = json.message ?? json.Message ?? '';
  } catch {
    message = text.slice(0, 200);
  }
  return { type, detail: `${what}: ${type}${message ? ` (${message})` : ''}` };
}
