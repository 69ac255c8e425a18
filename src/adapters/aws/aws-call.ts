/**
 * One signed AWS API call over HTTPS (SigV4, our own signer: no SDK), and AWS's JSON error shape read
 * back. Lambda Invoke, SSM GetParameter and Secrets Manager all go through here, so timeouts and
 * network errors read the same everywhere.
 */
import { KubemaintError } from '../../errors.js';
import { signRequest } from './sign-request.js';
import type { AwsCredentials } from './sigv4.js';

/** What every AWS API caller takes; each API's options add its endpoint and timeout defaults. */
export interface AwsCallOptions {
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly now: () => Date;
  /** In place of the public regional endpoint: a VPC endpoint, or a local server in tests. */
  readonly endpoint?: string;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
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
): Promise<{ response: Response; text: string }> {
  const signed = signRequest({
    method: 'POST',
    url: call.url,
    headers: call.headers,
    body: call.body,
    credentials: options.credentials,
    scope: { region: options.region, service: call.service },
    now: options.now(),
  });
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(call.url, {
      method: 'POST',
      headers: signed.headers,
      body: call.body,
      signal: AbortSignal.timeout(options.timeoutMs ?? defaultTimeoutMs),
    });
  } catch (error) {
    throw new KubemaintError('unexpected', `${call.what}: ${String(error)}`, { cause: error });
  }
  return { response, text: await response.text() };
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
