/**
 * Asynchronous Lambda invocation (`InvocationType: Event`) over HTTPS with SigV4, no AWS SDK. The
 * Slack function uses it to hand work that outlives Slack's 3-second acknowledgement to a second
 * invocation of itself: a Lambda is frozen the moment it answers, so work left running would stall.
 * API: https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html (202 Accepted for Event).
 */
import { KubemaintError } from '../../errors.js';
import { signRequest } from './sign-request.js';
import type { AwsCredentials } from './sigv4.js';

export interface InvokeAsyncOptions {
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly now: () => Date;
  /** @default `https://lambda.<region>.amazonaws.com` (a VPC endpoint, or a local server in tests) */
  readonly endpoint?: string;
  readonly fetch?: typeof fetch;
  /** @default 5_000: the caller is usually inside Slack's 3 s budget already */
  readonly timeoutMs?: number;
}

export interface InvokeAsyncResult {
  /** Lambda's id for the queued invocation (`x-amzn-RequestId`), for the log. */
  readonly requestId: string | undefined;
}

/** The async-invoke payload limit (256 KB): larger payloads get 413 from Lambda anyway. */
export const MAX_ASYNC_PAYLOAD_BYTES = 256 * 1024;

/**
 * A plain function name. ARNs and `name:alias` would need `:` in the path, which SigV4 signs
 * double-encoded for Lambda; the self-invocation only ever needs its own plain name.
 */
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Queues one invocation of `functionName` with `payload` as its event; resolves once Lambda accepted it. */
export async function invokeAsync(
  functionName: string,
  payload: unknown,
  options: InvokeAsyncOptions,
): Promise<InvokeAsyncResult> {
  if (!FUNCTION_NAME.test(functionName)) {
    throw new KubemaintError(
      'config_invalid',
      `${JSON.stringify(functionName)} is not a Lambda function name`,
      {
        hint: 'pass the plain name (Lambda sets AWS_LAMBDA_FUNCTION_NAME), not an ARN or name:alias',
      },
    );
  }
  const body = JSON.stringify(payload);
  if (Buffer.byteLength(body) > MAX_ASYNC_PAYLOAD_BYTES) {
    throw new KubemaintError(
      'unexpected',
      `the deferred event for ${functionName} is ${Buffer.byteLength(body)} bytes, over Lambda's 256 KB async limit`,
      { hint: 'pass references (request id, response_url), not whole payloads' },
    );
  }
  const base = (options.endpoint ?? `https://lambda.${options.region}.amazonaws.com`).replace(
    /\/+$/,
    '',
  );
  const url = `${base}/2015-03-31/functions/${functionName}/invocations`;
  const signed = signRequest({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', 'x-amz-invocation-type': 'Event' },
    body,
    credentials: options.credentials,
    scope: { region: options.region, service: 'lambda' },
    now: options.now(),
  });
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: signed.headers,
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
    });
  } catch (error) {
    throw new KubemaintError('unexpected', `invoking ${functionName}: ${String(error)}`, {
      cause: error,
    });
  }
  const text = await response.text();
  if (response.status !== 202) throw invokeError(functionName, response, text);
  return { requestId: response.headers.get('x-amzn-requestid') ?? undefined };
}

/** Lambda errors are JSON with `Type`/`__type` and `message`/`Message`, and x-amzn-ErrorType. */
function invokeError(functionName: string, response: Response, text: string): KubemaintError {
  let type = response.headers.get('x-amzn-errortype')?.split(':')[0] ?? `HTTP ${response.status}`;
  let message: string;
  try {
    const json = JSON.parse(text) as { __type?: string; message?: string; Message?: string };
    type = json.__type?.split('#').pop() ?? type;
    message = json.message ?? json.Message ?? '';
  } catch {
    message = text.slice(0, 200);
  }
  const detail = `invoking ${functionName}: ${type}${message ? ` (${message})` : ''}`;
  if (response.status === 403 || /AccessDenied|UnrecognizedClient|InvalidSignature/.test(type)) {
    return new KubemaintError('config_invalid', detail, {
      hint: 'the function role needs lambda:InvokeFunction on this function (serverless.yml iam)',
    });
  }
  if (response.status === 404) {
    return new KubemaintError('not_found', detail, {
      hint: 'check the function name and the region',
    });
  }
  return new KubemaintError('unexpected', detail);
}
