/**
 * The field manager of the API's writes: who a request writes as (`fieldManager`, or the start of
 * its User-Agent, as upstream), and the store option that records its fields in
 * `metadata.managedFields` (managed-fields/).
 */
import {
  kindType,
  updateManagedFields,
  type FieldWrite,
  type ManagedFieldsEntry,
} from '../managed-fields/index.js';
import { apiVersionOf } from '../resources.js';
import { invalidOptions } from '../status-errors.js';
import { formatTime } from '../store-meta.js';
import type { Store, WriteOptions } from '../types.js';
import type { Target } from './handlers.js';
import type { OptionsKind, RequestContext } from './http.js';

/** `fieldManager`, or the User-Agent up to its first `/` (kubectl.1.33, OpenAPI-Generator). */
export function managerOf(ctx: RequestContext, kind: OptionsKind): string {
  const given = ctx.query.get('fieldManager');
  if (given !== null && given !== '') {
    if (given.length > 128) {
      throw invalidOptions(kind, {
        reason: 'FieldValueTooLong',
        message: `Too long: may not be more than 128 bytes`,
        field: 'fieldManager',
      });
    }
    return given;
  }
  return (ctx.req.headers['user-agent'] ?? '').split('/')[0] ?? '';
}

export function fieldWrite(
  ctx: RequestContext,
  t: Target,
  store: Store,
  manager: string,
): FieldWrite {
  return {
    manager,
    apiVersion: apiVersionOf(t.def),
    subresource:
      t.subresource === 'status' || t.subresource === 'scale' ? t.subresource : undefined,
    hasStatus: t.def.subresources.includes('status'),
    type: kindType(t.def, store),
    now: formatTime(ctx.now()),
  };
}

/** The store's `track` option for a create, update or patch through this request. */
export function trackOption(
  ctx: RequestContext,
  t: Target,
  store: Store,
  kind: OptionsKind,
): Pick<WriteOptions, 'track'> {
  const write = fieldWrite(ctx, t, store, managerOf(ctx, kind));
  return {
    track: (object, old) => {
      // Through a subresource, the request's own managedFields are ignored (upstream's rule).
      const given = write.subresource ? undefined : object.metadata.managedFields;
      let entries: ManagedFieldsEntry[] = [];
      try {
        entries = updateManagedFields(old, object, given, write);
      } catch {
        // As upstream's UpdateNoErrors: a field manager failure resets the managed fields, never
        // the write.
      }
      if (entries.length > 0) object.metadata.managedFields = entries;
      else delete object.metadata.managedFields;
    },
  };
}
