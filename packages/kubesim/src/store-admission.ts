/**
 * Admission and update rules of the generic registry: a namespaced object needs an existing, live
 * namespace; names, labels and kind-specific fields must validate (422 with every cause listed);
 * an update must carry the current resourceVersion (or be allowed to go without one), names the
 * uid of the object it means if it names one, keeps the other immutable metadata, bumps `generation` on spec changes, and through the `status` subresource
 * changes nothing but the status.
 */
import { apiVersionOf, requireResource, type ResourceDef } from './resources.js';
import { conflict, forbidden, invalid, invalidInStorage, notFound } from './status-errors.js';
import { clone, dropEmptyMaps, specChanged, validateLabels, validateName } from './store-meta.js';
import type { KObject } from './types.js';

const NAMESPACES = 'namespaces';

export function admitNamespace(
  def: ResourceDef,
  object: KObject,
  lookup: (namespace: string) => KObject | undefined,
): void {
  const ns = object.metadata.namespace;
  if (!def.namespaced) {
    delete object.metadata.namespace;
    return;
  }
  if (!ns) {
    throw invalid(def, object.metadata.name ?? '', [
      { reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' },
    ]);
  }
  const namespace = lookup(ns);
  if (!namespace) throw notFound(requireResource(NAMESPACES), ns);
  if (namespace.metadata.deletionTimestamp) {
    const message = `namespace ${ns} is being terminated`;
    throw forbidden(
      def,
      object.metadata.name ?? '',
      `unable to create new content in namespace ${ns} because it is being terminated`,
      [{ reason: 'NamespaceTerminating', message, field: 'metadata.namespace' }],
    );
  }
}

export function validateObject(
  def: ResourceDef,
  object: KObject,
  old?: KObject,
  subresource?: string,
): void {
  const causes = [
    ...(def.validateName?.(object.metadata.name ?? '') ??
      validateName(object.metadata.name ?? '', def.key === NAMESPACES)),
    ...validateLabels(object.metadata.labels),
    ...(def.validate?.(object, old, subresource) ?? []),
  ];
  if (causes.length > 0) throw invalid(def, object.metadata.name ?? '', causes);
}

const IMMUTABLE_META = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
];

/** The object an update would store (before validation), or a 409/422 for its resourceVersion. */
export function prepareUpdate(
  def: ResourceDef,
  current: KObject,
  object: KObject,
  subresource: string | undefined,
): KObject {
  const name = current.metadata.name ?? '';
  // A uid in the body is a precondition: an update meant for an object deleted and created again
  // under the same name fails (409 as etcd3's store answers it; a PATCH is refused earlier, 422).
  const uid = object.metadata.uid;
  if (uid !== undefined && uid !== '' && uid !== current.metadata.uid) {
    const key = [def.plural, current.metadata.namespace, name].filter(Boolean).join('/');
    throw conflict(
      def,
      name,
      `StorageError: invalid object, Code: 4, Key: /registry/${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
    );
  }
  const wanted = object.metadata.resourceVersion;
  if (wanted !== undefined && wanted !== '') {
    if (wanted !== current.metadata.resourceVersion) throw conflict(def, name);
  } else if (!def.unconditionalUpdate) {
    throw invalidInStorage(def, name, {
      reason: 'FieldValueInvalid',
      message: 'Invalid value: 0: must be specified for an update',
      field: 'metadata.resourceVersion',
    });
  }
  if (subresource === 'status') {
    // The status strategies keep the spec; metadata changes go through (labels too, except for the
    // apps/v1 workloads, whose status strategies keep their labels).
    const next = clone(current);
    if (object.status === undefined) delete next.status;
    else next.status = object.status;
    const writable =
      def.statusMetadata ?? (def.group === 'apps' ? ['annotations'] : ['labels', 'annotations']);
    for (const key of writable) {
      const value = object.metadata[key];
      if (value === undefined) delete next.metadata[key];
      else next.metadata[key] = value;
    }
    // Any write stores the object anew, at today's storage version (a custom resource's may differ).
    next.apiVersion = apiVersionOf(def);
    dropEmptyMaps(next.metadata);
    def.prepareForUpdate?.(next, subresource);
    return next;
  }
  const next = object;
  for (const field of IMMUTABLE_META) {
    if (current.metadata[field] === undefined) delete next.metadata[field];
    else next.metadata[field] = current.metadata[field];
  }
  next.metadata.name = name;
  if (current.metadata.namespace === undefined) delete next.metadata.namespace;
  else next.metadata.namespace = current.metadata.namespace;
  next.apiVersion = apiVersionOf(def);
  next.kind = def.kind;
  dropEmptyMaps(next.metadata);
  if ((def.bumpsGeneration ?? specChanged)(current, next))
    next.metadata.generation = (current.metadata.generation ?? 0) + 1;
  def.prepareForUpdate?.(next, subresource);
  return next;
}
