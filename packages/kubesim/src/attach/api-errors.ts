/**
 * What an apiserver's refusal means to the attached kubelets, and a retry for what is safe to repeat.
 * kube-json throws `ApiCallError` for every non-2xx answer and lets network errors through; `once`
 * names the action, `withRetry` also rides out 429s and 5xx/network failures the
 * way a kubelet does, with jittered exponential backoff and Retry-After honoured.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export type ApiErrorKind =
  | 'not-found'
  | 'already-exists'
  | 'conflict'
  | 'forbidden'
  | 'invalid'
  | 'throttled'
  | 'unavailable'
  | 'unexpected';

export class ApiCallError extends Error {
  readonly kind: ApiErrorKind;
  readonly status: number;
  readonly reason: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(
    kind: ApiErrorKind,
    message: string,
    extra: { status: number; reason?: string; retryAfterMs?: number; cause?: unknown },
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'ApiCallError';
    this.kind = kind;
    this.status = extra.status;
    this.reason = extra.reason;
    this.retryAfterMs = extra.retryAfterMs;
  }
}

export const isApiError = (error: unknown, kind?: ApiErrorKind): error is ApiCallError =>
  error instanceof ApiCallError && (kind === undefined || error.kind === kind);

export function kindOfStatus(status: number, reason: string | undefined): ApiErrorKind {
  if (status === 409) return reason === 'AlreadyExists' ? 'already-exists' : 'conflict';
  if (status === 404) return 'not-found';
  if (status === 429) return 'throttled';
  if (status === 401 || status === 403) return 'forbidden';
  if (status === 400 || status === 415 || status === 422) return 'invalid';
  if (status >= 500) return 'unavailable';
  return 'unexpected';
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

function named(error: unknown, action: string): ApiCallError {
  if (error instanceof ApiCallError) {
    return new ApiCallError(error.kind, `${action}: ${error.message}`, {
      status: error.status,
      ...(error.reason === undefined ? {} : { reason: error.reason }),
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      cause: error,
    });
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  const network = typeof code === 'string' && NETWORK_CODES.has(code);
  const message = error instanceof Error ? error.message : String(error);
  return new ApiCallError(network ? 'unavailable' : 'unexpected', `${action}: ${message}`, {
    status: 0,
    cause: error,
  });
}

/** Run `call` once; a failure is an ApiCallError whose message starts with `action`. */
export async function once<T>(action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw named(error, action);
  }
}

const ATTEMPTS = 8;

/**
 * Like `once`, retrying throttling and unavailability (the kubelets never evict, so no PDB 429s):
 * eight attempts, or for as long as `keepTrying` says (what a kubelet must not give up on, every
 * 10 s at most once the backoff is spent; a refusal too, while it says so).
 */
export async function withRetry<T>(
  action: string,
  call: () => Promise<T>,
  keepTrying?: () => boolean,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (raw) {
      const error = named(raw, action);
      // What must not be given up is also retried past a refusal: a kube-apiserver just restarted
      // answers 403 until its authorizer's caches have filled (the faults test's attached fleet
      // was refused its impersonation for a while), and a kubelet keeps trying whatever it is told.
      const retryable =
        error.kind === 'unavailable' ||
        error.kind === 'throttled' ||
        (keepTrying !== undefined && error.kind === 'forbidden' && keepTrying());
      if (!retryable || (attempt + 1 >= ATTEMPTS && !keepTrying?.())) throw error;
      const ceiling = Math.min(10_000, 200 * 2 ** attempt);
      await sleep(error.retryAfterMs ?? Math.floor(Math.random() * ceiling));
    }
  }
}
