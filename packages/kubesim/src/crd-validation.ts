/**
 * The CustomResourceDefinition kind's own rules: what kube-apiserver defaults on a new CRD (singular,
 * listKind, conversion None, a status with nothing accepted yet) and the part of its validation a
 * CRD author meets first (name, group, names, scope, one storage version, a schema per version, CEL
 * rules that compile).
 * Serving what a CRD defines is crd-controller.ts's work.
 */
import { ruleCompileErrors } from './schema/cel-rules.js';
import type { StatusCause } from './status-errors.js';
import type { KObject } from './types.js';

/** What the apiserver's CRD registry adds on delete; the CRD goes once its objects are gone. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
/** A string field, or `fallback` when it is absent or not a string. */
export const text = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  raw: Obj;
}

export interface CrdSpec {
  group: string;
  scope: string;
  kind: string;
  plural: string;
  singular: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
  versions: CrdVersion[];
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];

/** The spec fields the sim reads, typed (after defaults). */
export function crdSpec(crd: KObject): CrdSpec {
  const spec = obj(crd.spec);
  const names = obj(spec['names']);
  const kind = text(names['kind']);
  return {
    group: text(spec['group']),
    scope: text(spec['scope']),
    kind,
    plural: text(names['plural']),
    singular: text(names['singular'], kind.toLowerCase()),
    listKind: text(names['listKind'], `${kind}List`),
    shortNames: strings(names['shortNames']),
    categories: strings(names['categories']),
    versions: list(spec['versions']).map((v) => ({
      name: text(v['name']),
      served: v['served'] === true,
      storage: v['storage'] === true,
      raw: v,
    })),
  };
}

export function crdDefaults(crd: KObject): void {
  const spec = (crd.spec ??= {});
  const names = obj(spec['names']);
  if (typeof names['kind'] === 'string') {
    names['singular'] ??= names['kind'].toLowerCase();
    names['listKind'] ??= `${names['kind']}List`;
  }
  spec['conversion'] ??= { strategy: 'None' };
  const storage = list(spec['versions']).find((v) => v['storage'] === true);
  // A new CRD's status: nothing accepted or established yet (crd-controller.ts does that next).
  crd.status = {
    acceptedNames: { kind: '', plural: '' },
    conditions: null,
    storedVersions: storage ? [storage['name']] : [],
  };
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * apiextensions' PrepareForUpdate: a CRD whose storage version changes records the new one in
 * `status.storedVersions`, since objects may now be written at it. Nothing else ever shortens the
 * list: a storage-version migration does, through `/status`, once every object was rewritten.
 */
export function crdPrepareForUpdate(next: KObject, subresource: string | undefined): void {
  if (subresource === 'status') return;
  const storage = crdSpec(next).versions.find((v) => v.storage);
  if (!storage) return;
  const status = obj(next.status);
  const stored = strings(status['storedVersions']);
  if (!stored.includes(storage.name))
    next.status = { ...status, storedVersions: [...stored, storage.name] };
}

/** ValidateCustomResourceDefinitionStoredVersions, on spec updates (never on `/status`). */
function storedVersionCauses(s: CrdSpec, status: unknown): StatusCause[] {
  const field = 'status.storedVersions';
  const stored = strings(obj(status)['storedVersions']);
  if (stored.length === 0) {
    return [
      {
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${JSON.stringify(stored)}: must have at least one stored version`,
      },
    ];
  }
  const causes: StatusCause[] = [];
  for (const v of s.versions) {
    if (v.storage && !stored.includes(v.name)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${JSON.stringify(v.raw)}: must have the storage version ${v.name}`,
      });
    }
  }
  stored.forEach((name, i) => {
    if (!s.versions.some((v) => v.name === name)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${field}[${i}]`,
        // kube-apiserver 1.34's words (seen in test/real/api-versions.test.ts).
        message: `Invalid value: ${JSON.stringify(name)}: missing from spec.versions; ${name} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${name} and removes ${name} from status.storedVersions`,
      });
    }
  });
  return causes;
}

export function crdValidate(crd: KObject, old?: KObject, subresource?: string): StatusCause[] {
  // A /status write is checked by ValidateUpdateCustomResourceDefinitionStatus alone (accepted
  // names, conditions): kube-apiserver takes any storedVersions there, and only the next spec
  // write is refused for them.
  if (subresource === 'status') return [];
  const causes: StatusCause[] = [];
  const add = (field: string, reason: string, message: string) =>
    causes.push({ reason, field, message });
  const s = crdSpec(crd);
  if (s.group === '') add('spec.group', 'FieldValueRequired', 'Required value');
  else if (!s.group.includes('.')) {
    add(
      'spec.group',
      'FieldValueInvalid',
      `Invalid value: ${JSON.stringify(s.group)}: should be a domain with at least one dot`,
    );
  }
  const name = crd.metadata.name ?? '';
  if (s.plural !== '' && s.group !== '' && name !== `${s.plural}.${s.group}`) {
    add(
      'metadata.name',
      'FieldValueInvalid',
      `Invalid value: ${JSON.stringify(name)}: must be spec.names.plural+"."+spec.group`,
    );
  }
  if (s.scope === '') add('spec.scope', 'FieldValueRequired', 'Required value');
  else if (!['Cluster', 'Namespaced'].includes(s.scope)) {
    add(
      'spec.scope',
      'FieldValueNotSupported',
      `Unsupported value: ${JSON.stringify(s.scope)}: supported values: "Cluster", "Namespaced"`,
    );
  }
  for (const [field, value] of [
    ['plural', s.plural],
    ['kind', s.kind],
  ] as const) {
    if (value === '') add(`spec.names.${field}`, 'FieldValueRequired', 'Required value');
  }
  if (s.plural !== '' && !DNS_LABEL.test(s.plural)) {
    add(
      'spec.names.plural',
      'FieldValueInvalid',
      `Invalid value: ${JSON.stringify(s.plural)}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    );
  }
  if (s.versions.length === 0) {
    add(
      'spec.versions',
      'FieldValueInvalid',
      'Invalid value: "null": must have exactly one version marked as storage version',
    );
  } else if (s.versions.filter((v) => v.storage).length !== 1) {
    add(
      'spec.versions',
      'FieldValueInvalid',
      `Invalid value: ${JSON.stringify(s.versions.map((v) => v.raw))}: must have exactly one version marked as storage version`,
    );
  }
  s.versions.forEach((v, i) => {
    const schema = obj(obj(v.raw['schema'])['openAPIV3Schema']);
    // A rule that does not compile is refused with the CRD, not met by every object later.
    causes.push(...ruleCompileErrors(schema, 'spec.validation.openAPIV3Schema'));
    if (schema['type'] === undefined) {
      add(
        `spec.versions[${i}].schema.openAPIV3Schema`,
        'FieldValueRequired',
        'Required value: schemas are required',
      );
    }
  });
  if (old && s.versions.filter((v) => v.storage).length === 1)
    causes.push(...storedVersionCauses(s, crd.status));
  return causes;
}
