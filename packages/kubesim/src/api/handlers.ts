/**
 * REST verbs on resource routes, translated onto the store as kube-apiserver's generic handlers do:
 * namespace and name from the URL win (mismatches are 400s), the main resource cannot change the
 * status of kinds with a status subresource (and the status subresource changes only the status),
 * PATCH is read-modify-write on the current object, DELETE answers the object for pods and a
 * Success Status otherwise, and lists come back as `<Kind>List` (or a Table for kubectl get).
 */
import { apiVersionOf, type ResourceDef } from '../resources.js';
import { badRequest, conflict, invalid, invalidOptions, notFound } from '../status-errors.js';
import { clone } from '../store-meta.js';
import { R, StatusError, type DeleteOptions, type KObject, type Store } from '../types.js';
import type { EvictionResult } from './eviction.js';
import type { TokenIssuer } from './service-account-tokens.js';
import { handleBinding, handleEviction, handleTokenRequest } from './subresources.js';
import {
  dryRunOf,
  mediaType,
  readBody,
  readDeleteOptions,
  readObject,
  parseJson,
  sendObject,
  successStatus,
  type RequestContext,
} from './http.js';
import { applyPatch, assertPatchType, PATCH_TYPES } from './patch.js';
import { handleApply } from './apply.js';
import { trackOption } from './field-manager.js';
import type { ValidatingAdmission } from '../admission/validating-admission.js';
import { admitOption } from './admission-hook.js';
import { assertCustomPatchType, decodeCustomResource } from './crd-requests.js';
import { handleScaleGet, handleScaleWrite } from './scale.js';
import { toTable, wantsTable } from './table.js';
import { asServed } from './served-version.js';

export interface Target {
  def: ResourceDef;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

export interface HandlerDeps {
  store: Store;
  onEviction?: (result: EvictionResult) => void;
  /** The TokenRequest API (`serviceaccounts/<name>/token`). */
  tokens?: TokenIssuer;
  /** ValidatingAdmissionPolicies, run on every write (admission-hook.ts). */
  admission?: ValidatingAdmission;
}

function objectName(t: Target): string {
  if (t.name === undefined)
    throw new StatusError(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
    );
  return t.name;
}

export function handleGet(ctx: RequestContext, t: Target, deps: HandlerDeps): void {
  if (t.subresource === 'scale') return handleScaleGet(ctx, t, deps);
  const object = deps.store.get(t.def.key, t.namespace, objectName(t));
  if (!object) throw notFound(t.def, t.name ?? '');
  sendObject(
    ctx.res,
    200,
    wantsTable(ctx.req)
      ? toTable(t.def, [object], ctx.now(), { resourceVersion: object.metadata.resourceVersion })
      : asServed(t.def, object),
  );
}

export function handleList(ctx: RequestContext, t: Target, deps: HandlerDeps): void {
  const q = ctx.query;
  const limit = Number(q.get('limit') ?? '0');
  if (!Number.isInteger(limit) || limit < 0)
    throw badRequest(`limit must be a non-negative integer, got ${JSON.stringify(q.get('limit'))}`);
  const page = deps.store.listPage(
    t.def.key,
    {
      ...(t.namespace ? { namespace: t.namespace } : {}),
      ...(q.get('labelSelector') ? { labelSelector: q.get('labelSelector')! } : {}),
      ...(q.get('fieldSelector') ? { fieldSelector: q.get('fieldSelector')! } : {}),
      limit,
      ...(q.get('continue') ? { continue: q.get('continue')! } : {}),
    },
    { shared: true },
  );
  const metadata = {
    resourceVersion: page.resourceVersion,
    ...(page.continue ? { continue: page.continue } : {}),
    ...(page.remainingItemCount === undefined
      ? {}
      : { remainingItemCount: page.remainingItemCount }),
  };
  if (wantsTable(ctx.req)) {
    sendObject(ctx.res, 200, toTable(t.def, page.items, ctx.now(), metadata));
    return;
  }
  sendList(ctx, t, metadata, page.items);
}

/** A list of the target's kind, at the version the request asked for. */
function sendList(
  ctx: RequestContext,
  t: Target,
  metadata: object,
  items: (KObject | undefined)[],
): void {
  sendObject(
    ctx.res,
    200,
    asServed(t.def, {
      kind: `${t.def.kind}List`,
      apiVersion: apiVersionOf(t.def),
      metadata,
      items,
    }),
  );
}

/** URL namespace and name are authoritative; the body may repeat them but not contradict them. */
function placeBody(t: Target, body: Record<string, unknown>, requireName: boolean): KObject {
  const object = body as KObject;
  object.metadata ??= {};
  const meta = object.metadata;
  if (t.def.namespaced) {
    if (meta.namespace && meta.namespace !== t.namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    meta.namespace = t.namespace;
  }
  if (requireName && t.name !== undefined) {
    if (meta.name && meta.name !== t.name) {
      throw badRequest(
        `the name of the object (${meta.name}) does not match the name on the URL (${t.name})`,
      );
    }
    meta.name = t.name;
  }
  if (object.kind !== undefined && object.kind !== t.def.kind) {
    throw badRequest(
      `the body kind ${JSON.stringify(object.kind)} does not match the resource ${t.def.plural} (kind ${t.def.kind})`,
    );
  }
  return object;
}

export async function handleCreate(
  ctx: RequestContext,
  t: Target,
  deps: HandlerDeps,
): Promise<void> {
  if (t.subresource === 'eviction') return handleEviction(ctx, t, deps);
  if (t.subresource === 'binding') return handleBinding(ctx, t, deps);
  if (t.subresource === 'token') return handleTokenRequest(ctx, t, deps);
  if (t.name !== undefined)
    throw new StatusError(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
    );
  const body = placeBody(t, await readObject(ctx), false);
  const object = decodeCustomResource(ctx, t, body, 'CreateOptions');
  const dryRun = dryRunOf(ctx.query);
  const created = deps.store.create(t.def.key, object, {
    actor: ctx.actor,
    dryRun,
    ...admitOption(ctx, t, deps.admission, dryRun),
    ...trackOption(ctx, t, deps.store, 'CreateOptions'),
  });
  sendObject(ctx.res, 201, asServed(t.def, created));
}

/** Kinds with a status subresource keep their status on main-resource writes, and vice versa. */
function scopeWrite(t: Target, current: KObject | undefined, next: KObject): KObject {
  if (!current || t.subresource === 'status' || !t.def.subresources.includes('status')) return next;
  const scoped = clone(next);
  if (current.status === undefined) delete scoped.status;
  else scoped.status = current.status;
  return scoped;
}

export async function handleUpdate(
  ctx: RequestContext,
  t: Target,
  deps: HandlerDeps,
): Promise<void> {
  if (t.subresource === 'scale') return handleScaleWrite(ctx, t, deps, 'update');
  const name = objectName(t);
  const body = placeBody(t, await readObject(ctx), true);
  const object = decodeCustomResource(ctx, t, body, 'UpdateOptions');
  const current = deps.store.get(t.def.key, t.namespace, name);
  const dryRun = dryRunOf(ctx.query, undefined, 'UpdateOptions');
  const options = {
    actor: ctx.actor,
    dryRun,
    ...(t.subresource ? { subresource: t.subresource } : {}),
    ...admitOption(ctx, t, deps.admission, dryRun),
    ...trackOption(ctx, t, deps.store, 'UpdateOptions'),
  };
  const written = deps.store.update(t.def.key, scopeWrite(t, current, object), options);
  sendObject(ctx.res, current ? 200 : 201, asServed(t.def, written));
}

export async function handlePatch(
  ctx: RequestContext,
  t: Target,
  deps: HandlerDeps,
): Promise<void> {
  if (t.subresource === 'scale') return handleScaleWrite(ctx, t, deps, 'patch');
  const name = objectName(t);
  const type = mediaType(ctx.req);
  if (type === PATCH_TYPES.apply) return handleApply(ctx, t, deps);
  assertCustomPatchType(t, type);
  assertPatchType(type);
  const body = parseJson(await readBody(ctx.req));
  const current = deps.store.get(t.def.key, t.namespace, name);
  if (!current) throw notFound(t.def, name);
  const patched = applyPatch(type, current, body) as KObject;
  if (patched === null || typeof patched !== 'object' || typeof patched.metadata !== 'object') {
    throw new StatusError(
      422,
      'Invalid',
      `${t.def.kind} "${name}" is invalid: the patch removed the object's metadata`,
    );
  }
  // A uid in the patch (the kubelet sends its pod's) may not differ from the object's: 422, as upstream.
  const uid = patched.metadata.uid;
  if (uid && uid !== current.metadata.uid) {
    throw invalid(t.def, name, [
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.uid',
        message: `Invalid value: ${JSON.stringify(uid)}: field is immutable`,
      },
    ]);
  }
  // The patch may carry its own resourceVersion (a conditional patch): it must still be current.
  const wanted = patched.metadata.resourceVersion;
  if (wanted && wanted !== current.metadata.resourceVersion) throw conflict(t.def, name);
  patched.metadata.resourceVersion = current.metadata.resourceVersion;
  const dryRun = dryRunOf(ctx.query, undefined, 'PatchOptions');
  const options = {
    actor: ctx.actor,
    verb: 'patch' as const,
    dryRun,
    ...(t.subresource ? { subresource: t.subresource } : {}),
    ...admitOption(ctx, t, deps.admission, dryRun),
    ...trackOption(ctx, t, deps.store, 'PatchOptions'),
  };
  const written = deps.store.update(
    t.def.key,
    scopeWrite(
      t,
      current,
      decodeCustomResource(ctx, t, placeBody(t, patched, true), 'PatchOptions', true),
    ),
    options,
  );
  sendObject(ctx.res, 200, asServed(t.def, written));
}

function deleteOptionsOf(ctx: RequestContext, body: Record<string, unknown>): DeleteOptions {
  const q = ctx.query;
  const grace = q.get('gracePeriodSeconds') ?? body['gracePeriodSeconds'];
  const policy =
    q.get('propagationPolicy') ??
    body['propagationPolicy'] ??
    (body['orphanDependents'] === true ? 'Orphan' : undefined);
  if (policy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(policy as string)) {
    throw invalidOptions('DeleteOptions', {
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
      field: 'propagationPolicy',
    });
  }
  const pre = body['preconditions'] as DeleteOptions['preconditions'] | undefined;
  return {
    actor: ctx.actor,
    dryRun: dryRunOf(q, body['dryRun'], 'DeleteOptions'),
    ...(grace !== undefined && grace !== null ? { gracePeriodSeconds: Number(grace) } : {}),
    ...(policy !== undefined
      ? { propagationPolicy: policy as DeleteOptions['propagationPolicy'] }
      : {}),
    ...(pre ? { preconditions: pre } : {}),
  };
}

export async function handleDelete(
  ctx: RequestContext,
  t: Target,
  deps: HandlerDeps,
): Promise<void> {
  const given = deleteOptionsOf(ctx, await readDeleteOptions(ctx));
  const options = { ...given, ...admitOption(ctx, t, deps.admission, given.dryRun ?? false) };
  if (t.name === undefined) {
    const doomed = deps.store.list(t.def.key, {
      ...(t.namespace ? { namespace: t.namespace } : {}),
      ...(ctx.query.get('labelSelector') ? { labelSelector: ctx.query.get('labelSelector')! } : {}),
      ...(ctx.query.get('fieldSelector') ? { fieldSelector: ctx.query.get('fieldSelector')! } : {}),
    });
    const items = doomed.map((o) =>
      deps.store.delete(t.def.key, o.metadata.namespace, o.metadata.name ?? '', options),
    );
    sendList(ctx, t, { resourceVersion: deps.store.resourceVersion() }, items);
    return;
  }
  const result = deps.store.delete(t.def.key, t.namespace, t.name, options);
  // An object a finalizer keeps (a CRD's cleanup may already have finished by now) is answered itself.
  const stillThere =
    deps.store.get(t.def.key, t.namespace, t.name) !== undefined ||
    result?.metadata.deletionTimestamp !== undefined;
  if (t.def.key === R.pods || (stillThere && !options.dryRun)) {
    sendObject(ctx.res, 200, asServed(t.def, result));
    return;
  }
  // kube-apiserver's delete Status carries no code (only failures do).
  const { code: _code, ...status } = successStatus(200, {
    name: t.name,
    ...(t.def.group ? { group: t.def.group } : {}),
    kind: t.def.plural,
    uid: result?.metadata.uid,
  });
  sendObject(ctx.res, 200, status);
}
