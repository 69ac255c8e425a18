/**
 * The one place that turns Kubernetes API failures into our own typed errors. Nothing above the kube
 * adapter sees `ApiException`: callers branch on `KubeError.kind` (conflict, not-found, throttled, …)
 * and read `retryAfterMs`, `reason` and the Status causes, which is what the drain and the slots need.
 */
import { ApiException } from '@kubernetes/client-node';
import { KubemaintError, type ErrorCode } from '../../errors.js';

export const KUBE_ERROR_KINDS = [
  'conflict',
  'already-exists',
  'not-found',
  'throttled',
  'forbidden',
  'unavailable',
  'invalid',
  'expired',
  // A write this process held back itself (write-fence.ts): it never reached the apiserver.
  'fenced',
  'unexpected',
] as const;
export type KubeErrorKind = (typeof KUBE_ERROR_KINDS)[number];

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

const CODE_BY_KIND: Record<KubeErrorKind, ErrorCode> = {
  conflict: 'conflict',
  'already-exists': 'conflict',
  'not-found': 'not_found',
  throttled: 'unexpected',
  forbidden: 'unexpected',
  unavailable: 'unexpected',
  invalid: 'unexpected',
  expired: 'unexpected',
  fenced: 'unexpected',
  unexpected: 'unexpected',
};

export class KubeError extends KubemaintError {
  readonly kind: KubeErrorKind;
  /** HTTP status, 0 when the request never got an answer (connection refused, reset, timeout). */
  readonly status: number;
  /** Status.reason from the API (`Conflict`, `TooManyRequests`, …), when there was one. */
  readonly reason: string | undefined;
  readonly causes: readonly StatusCause[];
  /** From the Retry-After header or `details.retryAfterSeconds`; undefined when the server gave none. */
  readonly retryAfterMs: number | undefined;

  constructor(
    kind: KubeErrorKind,
    message: string,
    extra: {
      status: number;
      reason?: string;
      causes?: readonly StatusCause[];
      retryAfterMs?: number;
      hint?: string;
      cause?: unknown;
    },
  ) {
    super(CODE_BY_KIND[kind], message, { hint: extra.hint, cause: extra.cause });
    this.name = 'KubeError';
    this.kind = kind;
    this.status = extra.status;
    this.reason = extra.reason;
    this.causes = extra.causes ?? [];
    this.retryAfterMs = extra.retryAfterMs;
  }
}

export const isKubeError = (error: unknown, kind?: KubeErrorKind): error is KubeError =>
  error instanceof KubeError && (kind === undefined || error.kind === kind);

interface StatusBody {
  message?: string;
  reason?: string;
  details?: { causes?: StatusCause[]; retryAfterSeconds?: number };
}

function parseStatus(body: unknown): StatusBody {
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body);
      return typeof parsed === 'object' && parsed !== null ? parsed : {};
    } catch {
      return { message: body.slice(0, 300) };
    }
  }
  return typeof body === 'object' && body !== null ? body : {};
}

function kindOf(status: number, reason: string | undefined): KubeErrorKind {
  if (status === 409) return reason === 'AlreadyExists' ? 'already-exists' : 'conflict';
  if (status === 404) return 'not-found';
  // 410 Gone: a list `continue` token or a watch resourceVersion too old; start over.
  if (status === 410) return 'expired';
  if (status === 429) return 'throttled';
  if (status === 401 || status === 403) return 'forbidden';
  if (status === 400 || status === 415 || status === 422) return 'invalid';
  if (status === 500 && reason === undefined) return 'unexpected';
  if (status >= 500) return 'unavailable';
  return 'unexpected';
}

const HINTS: Partial<Record<KubeErrorKind, string>> = {
  forbidden: 'check the RBAC of the service account or kubeconfig user (infra/k8s/rbac-*.yaml)',
  unavailable: 'the API server did not answer; check the kubeconfig server address and the network',
};

/** Seconds in a Retry-After header (delta-seconds form; HTTP dates are rare from kube-apiserver). */
function retryAfterOf(
  headers: Record<string, string> | undefined,
  body: StatusBody,
): number | undefined {
  const header = headers?.['retry-after'] ?? headers?.['Retry-After'];
  const seconds = header !== undefined ? Number(header) : body.details?.retryAfterSeconds;
  return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0
    ? seconds * 1_000
    : undefined;
}

/** Network-level failures that never produced an HTTP status: worth a retry. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
]);

function networkCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    e = e.cause;
  }
  return undefined;
}

/**
 * Translate whatever the client threw into a KubeError naming the action. A KubeError passes through
 * unchanged; anything unrecognised becomes kind `unexpected` with the original as cause.
 */
export function translate(error: unknown, action: string): KubeError {
  if (error instanceof KubeError) return error;
  if (error instanceof ApiException) {
    const status = error.code;
    const body = parseStatus(error.body);
    const kind = kindOf(status, body.reason);
    const hint = HINTS[kind];
    return new KubeError(kind, `${action}: ${body.message ?? `HTTP ${status}`}`, {
      status,
      ...(body.reason === undefined ? {} : { reason: body.reason }),
      causes: body.details?.causes ?? [],
      ...(hint === undefined ? {} : { hint }),
      retryAfterMs: retryAfterOf(error.headers, body),
      cause: error,
    });
  }
  const network = networkCode(error);
  if (network !== undefined || (error instanceof TypeError && error.message === 'fetch failed')) {
    return new KubeError('unavailable', `${action}: ${network ?? 'connection failed'}`, {
      status: 0,
      ...(HINTS.unavailable === undefined ? {} : { hint: HINTS.unavailable }),
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new KubeError('unexpected', `${action}: ${message}`, { status: 0, cause: error });
}
