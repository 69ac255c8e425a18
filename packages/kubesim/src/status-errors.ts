/**
 * The apiserver's error vocabulary (apimachinery `pkg/api/errors`): the exact reasons, codes,
 * messages and details that clients branch on. client-go's `IsConflict`, `IsNotFound`,
 * `IsTooManyRequests` and kubectl's messages depend on these strings, so they are copied verbatim.
 */
import { StatusError } from './types.js';

/** What an error needs to name a resource: `pods`, `leases.coordination.k8s.io`, `Lease.coordination.k8s.io`. */
export interface ResourceName {
  plural: string;
  group: string;
  kind: string;
}

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export const qualifiedResource = (r: ResourceName): string =>
  r.group === '' ? r.plural : `${r.plural}.${r.group}`;

const qualifiedKind = (r: ResourceName): string =>
  r.group === '' ? r.kind : `${r.kind}.${r.group}`;

function details(r: ResourceName, name: string, extra: Record<string, unknown> = {}) {
  return { name, ...(r.group === '' ? {} : { group: r.group }), kind: r.plural, ...extra };
}

export function notFound(r: ResourceName, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(r)} "${name}" not found`, {
    details: details(r, name),
  });
}

export function alreadyExists(r: ResourceName, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualifiedResource(r)} "${name}" already exists`, {
    details: details(r, name),
  });
}

/** `why` defaults to the optimistic-lock message that client-go's retry helpers recognise. */
export function conflict(r: ResourceName, name: string, why?: string): StatusError {
  const reason =
    why ??
    'the object has been modified; please apply your changes to the latest version and try again';
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": ${reason}`,
    { details: details(r, name) },
  );
}

/**
 * A delete precondition (uid or resourceVersion) that does not hold: `rest.BeforeDelete` names the
 * object by its kind (`Pod "x"`, `Lease.coordination.k8s.io "x"`), not by its resource.
 */
export function preconditionFailed(r: ResourceName, name: string, why: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedKind(r)} "${name}": ${why}`,
    {
      details: { name, ...(r.group === '' ? {} : { group: r.group }), kind: r.kind },
    },
  );
}

/** 422 from the storage layer (a Lease update without a resourceVersion): named by resource. */
export function invalidInStorage(r: ResourceName, name: string, cause: StatusCause): StatusError {
  const text = cause.field ? `${cause.field}: ${cause.message}` : cause.message;
  return new StatusError(422, 'Invalid', `${qualifiedResource(r)} "${name}" is invalid: ${text}`, {
    details: details(r, name, { causes: [cause] }),
  });
}

export function invalid(r: ResourceName, name: string, causes: StatusCause[]): StatusError {
  const text = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const joined = text.length === 1 ? (text[0] ?? '') : `[${text.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${qualifiedKind(r)} "${name}" is invalid: ${joined}`, {
    details: { name, ...(r.group === '' ? {} : { group: r.group }), kind: r.kind, causes },
  });
}

/** 422 for a request option (`CreateOptions`, `DeleteOptions`, … of meta.k8s.io) that is not valid. */
export function invalidOptions(
  kind: string,
  cause: { reason: string; message: string; field: string },
): StatusError {
  return new StatusError(
    422,
    'Invalid',
    `${kind}.meta.k8s.io "" is invalid: ${cause.field}: ${cause.message}`,
    { details: { group: 'meta.k8s.io', kind, causes: [cause] } },
  );
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

/** Watch or continue token older than the retained history. */
export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function forbidden(r: ResourceName, name: string, why: string, causes?: StatusCause[]) {
  return new StatusError(
    403,
    'Forbidden',
    `${qualifiedResource(r)} "${name}" is forbidden: ${why}`,
    {
      details: details(r, name, causes ? { causes } : {}),
    },
  );
}

export function tooManyRequests(
  message: string,
  options: { retryAfterSeconds?: number; causes?: StatusCause[] } = {},
): StatusError {
  const d: Record<string, unknown> = {};
  if (options.causes) d['causes'] = options.causes;
  if (options.retryAfterSeconds !== undefined) d['retryAfterSeconds'] = options.retryAfterSeconds;
  return new StatusError(429, 'TooManyRequests', message, {
    ...(Object.keys(d).length > 0 ? { details: d } : {}),
    ...(options.retryAfterSeconds === undefined
      ? {}
      : { retryAfterSeconds: options.retryAfterSeconds }),
  });
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`);
}

/** Renders any error as the `Status` body the apiserver sends (unknown errors become 500). */
export function toStatus(error: unknown): { code: number; body: Record<string, unknown> } {
  const e =
    error instanceof StatusError
      ? error
      : internalError(error instanceof Error ? error.message : String(error));
  const body: Record<string, unknown> = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: e.message,
  };
  // The multi-PDB eviction failure is a 500 without a reason, exactly as kube-apiserver sends it.
  if (e.reason !== '') body['reason'] = e.reason;
  if (e.details !== undefined) body['details'] = e.details;
  body['code'] = e.code;
  return { code: e.code, body };
}
