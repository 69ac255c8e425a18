/**
 * Connects a request to validating admission: the `admit` callback a handler passes to the store
 * (which calls it with the final object, after defaulting and validation), and the direct check the
 * POST-only subresources make (`pods/eviction`, `pods/binding`, `serviceaccounts/token`), whose
 * object is the request body. Warn decisions become `Warning: 299 - "…"` headers, as upstream.
 */
import type { AdmissionAttributes, Operation } from '../admission/attributes.js';
import type { ValidatingAdmission } from '../admission/validating-admission.js';
import { POST_ONLY_SUBRESOURCES } from './discovery.js';
import type { KObject, WriteOptions } from '../types.js';
import { addWarnings, type RequestContext } from './http.js';
import type { Target } from './handlers.js';

function attributes(
  ctx: RequestContext,
  t: Target,
  operation: Operation,
  object: KObject | undefined,
  old: KObject | undefined,
  dryRun: boolean,
): AdmissionAttributes {
  const sub = t.subresource ?? '';
  const postOnly = POST_ONLY_SUBRESOURCES[sub];
  const kind = postOnly
    ? {
        group: postOnly.group ?? t.def.group,
        version: postOnly.version ?? t.def.version,
        kind: postOnly.kind,
      }
    : { group: t.def.group, version: t.def.version, kind: t.def.kind };
  return {
    operation,
    resource: { group: t.def.group, version: t.def.version, resource: t.def.plural },
    subresource: sub,
    kind,
    namespaced: t.def.namespaced,
    name: t.name ?? object?.metadata.name ?? old?.metadata.name ?? '',
    namespace: t.def.namespaced ? (t.namespace ?? object?.metadata.namespace ?? '') : '',
    object,
    oldObject: old,
    user: ctx.user,
    dryRun,
  };
}

const warn = (ctx: RequestContext, warnings: readonly string[]): void =>
  addWarnings(ctx.res, warnings);

/** The store's `admit` option for a create/update/delete through this request. */
export function admitOption(
  ctx: RequestContext,
  t: Target,
  admission: ValidatingAdmission | undefined,
  dryRun: boolean,
): Pick<WriteOptions, 'admit'> {
  if (!admission) return {};
  return {
    admit: (object, old) => {
      const operation: Operation =
        object === undefined ? 'DELETE' : old === undefined ? 'CREATE' : 'UPDATE';
      // A collection delete admits each object by name; t.name is unset then.
      const target = t.name === undefined ? { ...t, name: (object ?? old)?.metadata.name } : t;
      warn(ctx, admission.admit(attributes(ctx, target, operation, object, old, dryRun)).warnings);
    },
  };
}

/** A POST-only subresource (its body is the object admission sees): CREATE of `<plural>/<sub>`. */
export function admitSubresourceCreate(
  ctx: RequestContext,
  t: Target,
  admission: ValidatingAdmission | undefined,
  body: Record<string, unknown>,
  dryRun: boolean,
): void {
  if (!admission) return;
  const object = { ...body, metadata: (body['metadata'] ?? {}) as KObject['metadata'] } as KObject;
  warn(ctx, admission.admit(attributes(ctx, t, 'CREATE', object, undefined, dryRun)).warnings);
}
