/**
 * What a request for a custom resource meets before the store: its body is decoded through the
 * version's schema (unknown fields pruned, defaults filled in, crd-defs.ts) under the request's
 * `fieldValidation` (Strict: 400 naming every unknown field; Warn, the default: a `Warning` header
 * per field; Ignore: silence), and a strategic merge patch is refused (415), since a custom resource
 * has no patch strategy for it — the same answers kube-apiserver gives.
 */
import { invalid, invalidOptions } from '../status-errors.js';
import { StatusError, type KObject } from '../types.js';
import type { Target } from './handlers.js';
import { addWarnings, type OptionsKind, type RequestContext } from './http.js';
import { PATCH_TYPES } from './patch.js';

const OBJECT_META = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

type Mode = 'Strict' | 'Warn' | 'Ignore';

function modeOf(ctx: RequestContext, kind: OptionsKind): Mode {
  const value = ctx.query.get('fieldValidation') ?? '';
  if (value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw invalidOptions(kind, {
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`,
    field: 'fieldValidation',
  });
}

/**
 * Decodes a custom resource from a create/update body or a patch's result, in place. Built-in
 * kinds pass through unchanged.
 */
export function decodeCustomResource(
  ctx: RequestContext,
  t: Target,
  object: KObject,
  kind: OptionsKind,
  patched = false,
): KObject {
  const custom = t.def.custom;
  if (!custom) return object;
  const mode = modeOf(ctx, kind);
  const unknownMeta = Object.keys(object.metadata).filter((k) => !OBJECT_META.has(k));
  const strictText = mode === 'Strict' ? JSON.stringify(object) : '';
  for (const key of unknownMeta) delete object.metadata[key];
  const unknown = [...unknownMeta.map((k) => `metadata.${k}`), ...custom.decode(object)].sort();
  if (unknown.length === 0 || mode === 'Ignore') return object;
  const what = unknown.map((f) => `unknown field ${JSON.stringify(f)}`);
  if (mode === 'Warn') {
    addWarnings(ctx.res, what);
    return object;
  }
  const detail = `strict decoding error: ${what.join(', ')}`;
  if (patched) {
    // kube-apiserver reports a patch's strict error against the patched object, named by no kind.
    throw invalid({ plural: '', group: '', kind: '' }, '', [
      {
        reason: 'FieldValueInvalid',
        field: 'patch',
        message: `Invalid value: ${JSON.stringify(strictText)}: ${detail}`,
      },
    ]);
  }
  const k = t.def.kind;
  throw new StatusError(
    400,
    'BadRequest',
    `${k} in version ${JSON.stringify(t.def.version)} cannot be handled as a ${k}: ${detail}`,
  );
}

/** Custom resources take JSON patch and merge patch (and apply), not strategic merge patch. */
export function assertCustomPatchType(t: Target, contentType: string): void {
  if (!t.def.custom || contentType !== PATCH_TYPES.strategic) return;
  throw new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.json}, ${PATCH_TYPES.merge}, ${PATCH_TYPES.apply}`,
  );
}
