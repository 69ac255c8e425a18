/**
 * Asynchronous Lambda invocation (`InvocationType: Event`) over HTTPS, SigV4-signed by AWS's signer. The
 * Slack function uses it to hand work that outlives Slack's 3-second acknowledgement to a second
 * invocation of itself: a Lambda is frozen the moment it answers, so work left running would stall.
 * API: https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html (202 Accepted for Event).
 */
import { KubemaintError } from '../../errors.js';
import { awsErrorDetail, awsPost, type AwsCallOptions, type AwsResponse } from './aws-call.js';

export interface InvokeAsyncOptions extends AwsCallOptions {
  /** @default `https://lambda.<region>.amazonaws.com` (a VPC endpoint, or a local server in tests) */
  readonly endpoint?: string;
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
  const { response, text } = await awsPost(
    {
      url,
      service: 'lambda',
      headers: { 'content-type': 'application/json', 'x-amz-invocation-type': 'Event' },
      body,
      what: `invoking ${functionName}`,
    },
    options,
    5_000,
  );
  if (response.status !== 202) throw invokeError(functionName, response, text);
  return { requestId: response.headers.get('x-amzn-requestid') ?? undefined };
}

/** Lambda errors are JSON with `Type`/`__type` and `message`/`Message`, and x-amzn-ErrorType. */
function invokeError(functionName: string, response: AwsResponse, text: string): KubemaintError {
  const { type, detail } = awsErrorDetail(
    `invoking ${functionName}`,
    response.status,
    text,
    response.headers.get('x-amzn-errortype')?.split(':')[0],
  );
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
