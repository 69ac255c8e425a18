/**
 * The `scale` subresource of Deployments, ReplicaSets and StatefulSets (what `kubectl scale` and
 * autoscalers use): an autoscaling/v1 Scale made from the object (its replicas, and the selector as
 * text), read, replaced or patched; a write changes only the object's `spec.replicas`, with the
 * Scale's resourceVersion as the precondition.
 */
import { invalid, notFound } from '../status-errors.js';
import type { KObject } from '../types.js';
import type { HandlerDeps, Target } from './handlers.js';
import {
  dryRunOf,
  mediaType,
  parseJson,
  readBody,
  readObject,
  sendObject,
  type RequestContext,
} from './http.js';
import { admitOption } from './admission-hook.js';
import { trackOption } from './field-manager.js';
import { applyPatch, assertPatchType } from './patch.js';
import { selectorText } from './selector-text.js';

type Obj = Record<string, unknown>;
const o = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};

function scaleOf(object: KObject): Obj {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  const status = o(object.status);
  const replicas = Number(o(object.spec)['replicas'] ?? 0);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    // ScaleSpec.replicas is omitempty: zero replicas is `spec: {}`, as upstream writes it.
    spec: replicas === 0 ? {} : { replicas },
    status: {
      replicas: Number(status['replicas'] ?? 0),
      selector: selectorText(o(object.spec)['selector']),
    },
  };
}

function current(t: Target, deps: HandlerDeps): KObject {
  const object = deps.store.get(t.def.key, t.namespace, t.name ?? '');
  if (!object) throw notFound(t.def, t.name ?? '');
  return object;
}

export function handleScaleGet(ctx: RequestContext, t: Target, deps: HandlerDeps): void {
  sendObject(ctx.res, 200, scaleOf(current(t, deps)));
}

/** PUT and PATCH of `<plural>/<name>/scale`. */
export async function handleScaleWrite(
  ctx: RequestContext,
  t: Target,
  deps: HandlerDeps,
  verb: 'update' | 'patch',
): Promise<void> {
  // The body first, then the object, with no wait between reading it and writing it back: read
  // before the body arrived, a controller's write in between made a patch without resourceVersion
  // fail with 409 (the apiserver retries such a patch on the newest object) and a PUT write back
  // the stale object's other fields.
  let scale: Obj;
  let object: KObject;
  if (verb === 'patch') {
    const type = mediaType(ctx.req);
    assertPatchType(type);
    const patch = parseJson(await readBody(ctx.req));
    object = current(t, deps);
    scale = o(applyPatch(type, scaleOf(object), patch));
  } else {
    scale = await readObject(ctx);
    object = current(t, deps);
  }
  const replicas = o(scale['spec'])['replicas'] ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid({ plural: 'scale', group: 'autoscaling', kind: 'Scale' }, t.name ?? '', [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
      },
    ]);
  }
  const wanted = o(scale['metadata'])['resourceVersion'];
  const next: KObject = {
    ...object,
    metadata: {
      ...object.metadata,
      ...(typeof wanted === 'string' && wanted !== '' ? { resourceVersion: wanted } : {}),
    },
    spec: { ...object.spec, replicas },
  };
  const dryRun = dryRunOf(
    ctx.query,
    undefined,
    verb === 'patch' ? 'PatchOptions' : 'UpdateOptions',
  );
  const written = deps.store.update(t.def.key, next, {
    actor: ctx.actor,
    dryRun,
    subresource: 'scale',
    ...(verb === 'patch' ? { verb: 'patch' as const } : {}),
    ...admitOption(ctx, t, deps.admission, dryRun),
    ...trackOption(ctx, t, deps.store, verb === 'patch' ? 'PatchOptions' : 'UpdateOptions'),
  });
  sendObject(ctx.res, 200, scaleOf(written));
}
