/**
 * `metadata.managedFields`: who set which fields, as kube-apiserver's field manager records it. An
 * update (create, update, patch) gives its manager the fields it added or changed and takes them
 * from everyone else; an apply makes its manager own exactly the fields it applied, removes the
 * fields it applied before and no longer does (unless another manager owns them), and is refused
 * (409) when it would change a field another manager owns, unless forced. The rules are
 * structured-merge-diff's merge.Updater and apimachinery's managedfields package.
 */
import { StatusError } from '../types.js';
import { FieldSet, fieldElement, pathText, type Path } from './field-set.js';
import type { TypeNode } from './schema.js';
import { compare, merge, removeFields, toFieldSet } from './typed.js';

type Json = Record<string, unknown>;

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Json;
  subresource?: string;
}

interface Owner {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string | undefined;
  subresource: string | undefined;
  set: FieldSet;
}

/** What a write is, for the field manager. */
export interface FieldWrite {
  manager: string;
  apiVersion: string;
  /** `status` for the status subresource. */
  subresource: string | undefined;
  /** Whether the kind has a status subresource (then main-resource writes own no status). */
  hasStatus: boolean;
  type: TypeNode;
  /** RFC 3339, seconds. */
  now: string;
}

/** Server-set metadata no manager owns (stripmeta.go). */
const STRIPPED: readonly Path[] = [
  ['f:apiVersion'],
  ['f:kind'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation']
    .concat(['managedFields', 'resourceVersion'])
    .map((f) => ['f:metadata', fieldElement(f)]),
];

/** The fields a write may own: not server metadata, and status only through the status subresource. */
function ownable(set: FieldSet, w: FieldWrite): FieldSet {
  const stripped = set.without(STRIPPED);
  stripped.members.delete('f:metadata');
  if (w.subresource === 'status') {
    const out = new FieldSet();
    const status = stripped.children.get('f:status');
    if (status) out.children.set('f:status', status);
    if (stripped.members.has('f:status')) out.members.add('f:status');
    return out;
  }
  return w.hasStatus ? stripped.without([['f:status']]) : stripped;
}

const keyOf = (o: Pick<Owner, 'manager' | 'operation' | 'subresource'>) =>
  JSON.stringify([o.manager, o.operation, o.subresource ?? '']);

function decode(entries: unknown): Map<string, Owner> {
  const owners = new Map<string, Owner>();
  if (!Array.isArray(entries)) return owners;
  for (const e of entries as Partial<ManagedFieldsEntry>[]) {
    if (
      !e ||
      typeof e.manager !== 'string' ||
      (e.operation !== 'Apply' && e.operation !== 'Update')
    )
      continue;
    const owner: Owner = {
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion ?? '',
      time: e.time,
      subresource: e.subresource || undefined,
      set: FieldSet.fromFieldsV1(e.fieldsV1),
    };
    owners.set(keyOf(owner), owner);
  }
  return owners;
}

/** Sorted as upstream encodes them: Apply before Update, then by time, manager, version, subresource. */
function encode(owners: Map<string, Owner>): ManagedFieldsEntry[] {
  const seconds = (o: Owner) => (o.time ? Date.parse(o.time) / 1000 : 0);
  return [...owners.values()]
    .filter((o) => !o.set.empty())
    .sort(
      (p, q) =>
        p.operation.localeCompare(q.operation) ||
        seconds(p) - seconds(q) ||
        (p.manager < q.manager ? -1 : p.manager > q.manager ? 1 : 0) ||
        p.apiVersion.localeCompare(q.apiVersion) ||
        (p.subresource ?? '').localeCompare(q.subresource ?? ''),
    )
    .map((o) => ({
      manager: o.manager,
      operation: o.operation,
      apiVersion: o.apiVersion,
      ...(o.time ? { time: o.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: o.set.toFieldsV1(),
      ...(o.subresource ? { subresource: o.subresource } : {}),
    }));
}

function describe(o: Owner): string {
  const name = `${JSON.stringify(o.manager)}${o.subresource ? ` with subresource ${JSON.stringify(o.subresource)}` : ''}`;
  return o.operation === 'Update' ? `${name} using ${o.apiVersion}` : name;
}

function conflictError(conflicts: { owner: Owner; path: Path }[]): StatusError {
  const sorted = [...conflicts].sort(
    (a, b) =>
      describe(a.owner).localeCompare(describe(b.owner)) ||
      pathText(a.path).localeCompare(pathText(b.path)),
  );
  const causes = sorted.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describe(c.owner)}`,
    field: pathText(c.path),
  }));
  let message: string;
  const [only] = sorted;
  if (sorted.length === 1 && only) {
    message = `Apply failed with 1 conflict: conflict with ${describe(only.owner)}: ${pathText(only.path)}`;
  } else {
    const lines: string[] = [];
    for (const name of [...new Set(sorted.map((c) => describe(c.owner)))]) {
      lines.push(`conflicts with ${name}:`);
      for (const c of sorted.filter((x) => describe(x.owner) === name))
        lines.push(`- ${pathText(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { details: { causes } });
}

/**
 * merge.Updater.update: every manager but `self` loses what changed (a conflict unless `force`)
 * and what was removed.
 */
function takeChanges(
  owners: Map<string, Owner>,
  selfKey: string,
  live: unknown,
  next: unknown,
  w: FieldWrite,
  force: boolean,
) {
  const cmp = compare(live, next, w.type);
  const changed = ownable(cmp.modified.union(cmp.added), w);
  const removed = ownable(cmp.removed, w);
  const conflicts: { owner: Owner; path: Path }[] = [];
  for (const [key, owner] of owners) {
    if (key === selfKey) continue;
    const taken = owner.set.intersection(changed);
    for (const path of taken.paths()) conflicts.push({ owner, path });
    owner.set = owner.set.difference(taken).difference(removed);
  }
  if (!force && conflicts.length > 0) throw conflictError(conflicts);
  return { changed, removed };
}

/** The entries after an update (create, update, patch) by `w.manager` from `live` to `next`. */
export function updateManagedFields(
  live: Json | undefined,
  next: Json,
  given: unknown,
  w: FieldWrite,
): ManagedFieldsEntry[] {
  // A write that sends managedFields replaces them (kubectl's client-side-apply upgrade does).
  const owners = decode(
    Array.isArray(given) && given.length > 0 ? given : metaOf(live)['managedFields'],
  );
  const self: Owner = {
    manager: w.manager,
    operation: 'Update',
    apiVersion: w.apiVersion,
    time: undefined,
    subresource: w.subresource,
    set: new FieldSet(),
  };
  const selfKey = keyOf(self);
  const { changed, removed } = takeChanges(owners, '', live ?? {}, next, w, true);
  const previous = owners.get(selfKey);
  if (!changed.empty()) {
    owners.set(selfKey, {
      ...self,
      time: w.now,
      set: (previous?.set ?? new FieldSet()).difference(removed).union(changed),
    });
  } else if (previous) previous.set = previous.set.difference(removed);
  return encode(owners);
}

const metaOf = (o: Json | undefined): Json => (o?.['metadata'] ?? {}) as Json;

/**
 * An apply of `config` by `w.manager` to `live` (undefined: the object does not exist yet): the
 * object to store and its managedFields, or a 409 listing the conflicts.
 */
export function applyConfig(
  live: Json | undefined,
  config: Json,
  w: FieldWrite,
  force: boolean,
): { object: Json; managedFields: ManagedFieldsEntry[]; changed: boolean } {
  const base = live ?? {};
  const owners = decode(metaOf(live)['managedFields']);
  const self: Owner = {
    manager: w.manager,
    operation: 'Apply',
    apiVersion: w.apiVersion,
    time: undefined,
    subresource: w.subresource,
    set: new FieldSet(),
  };
  const selfKey = keyOf(self);
  const previous = owners.get(selfKey);
  const applied = ownable(toFieldSet(config, w.type), w);
  let object = merge(base, config, w.type) as Json;
  if (previous) {
    const ownedByOthers = [...owners.entries()]
      .filter(([key]) => key !== selfKey)
      .reduce((all, [, o]) => all.union(o.set), new FieldSet());
    const dropped = previous.set.difference(applied).difference(ownedByOthers);
    if (!dropped.empty()) object = removeFields(object, dropped, w.type) as Json;
  }
  takeChanges(owners, selfKey, base, object, w, force);
  const changed = JSON.stringify(stripMeta(base)) !== JSON.stringify(stripMeta(object));
  owners.set(selfKey, { ...self, time: changed ? w.now : previous?.time, set: applied });
  return { object, managedFields: encode(owners), changed };
}

function stripMeta(o: Json): Json {
  const { metadata, ...rest } = o;
  const { managedFields: _m, resourceVersion: _r, ...meta } = (metadata ?? {}) as Json;
  return { ...rest, metadata: meta };
}
