/**
 * A CustomResourceDefinition turned into the registry entries that serve it, one per served
 * version, with the custom-resource strategy of kube-apiserver: a create drops `.status` when the
 * status subresource is on, any change outside metadata bumps `generation` (the status subresource
 * already keeps `.status` out of main-resource writes), a `/status` write changes nothing but the
 * status (not even labels), and requests are decoded through the version's structural schema
 * (pruning, defaults) before they are validated against it.
 */
import { crdSpec, text, type CrdSpec, type CrdVersion } from './crd-validation.js';
import { parseJsonPath, evaluateJsonPath } from './json-path.js';
import type { FieldGetter, PrinterColumn, ResourceDef } from './resources.js';
import { pruneAndDefault } from './schema/prune.js';
import type { Schema } from './schema/structural.js';
import { validateCustomResource } from './schema/validate-object.js';
import { deepEqual } from './store-meta.js';
import type { KObject } from './types.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};

/** What kube-apiserver shows for a version without printer columns. */
const DEFAULT_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

function printerColumns(v: CrdVersion): PrinterColumn[] {
  const raw = v.raw['additionalPrinterColumns'];
  if (!Array.isArray(raw) || raw.length === 0) return [...DEFAULT_COLUMNS];
  return raw.map((c) => {
    const col = obj(c);
    return {
      name: text(col['name']),
      type: text(col['type'], 'string'),
      jsonPath: text(col['jsonPath']),
      ...(typeof col['format'] === 'string' ? { format: col['format'] } : {}),
      ...(typeof col['description'] === 'string' ? { description: col['description'] } : {}),
      ...(typeof col['priority'] === 'number' ? { priority: col['priority'] } : {}),
    };
  });
}

/** `selectableFields` (GA in 1.32): field selectors on the paths a CRD names. */
function selectableFields(v: CrdVersion): Record<string, FieldGetter> {
  const raw = v.raw['selectableFields'];
  if (!Array.isArray(raw)) return {};
  return Object.fromEntries(
    raw.map((f) => {
      const jsonPath = text(obj(f)['jsonPath']);
      const steps = parseJsonPath(jsonPath);
      const getter: FieldGetter = (o) => {
        const [value] = evaluateJsonPath(steps, o);
        if (value === undefined || value === null) return undefined;
        return typeof value === 'string' ? value : JSON.stringify(value);
      };
      return [jsonPath.replace(/^\./, ''), getter];
    }),
  );
}

const nonMetadata = (o: KObject): Obj => {
  const { metadata: _m, ...rest } = o;
  return rest;
};

function versionDef(crdName: string, s: CrdSpec, v: CrdVersion): ResourceDef {
  const schema = obj(obj(v.raw['schema'])['openAPIV3Schema']) as Schema;
  const hasStatus = obj(v.raw['subresources'])['status'] !== undefined;
  return {
    key: `${s.plural}.${s.group}`,
    group: s.group,
    version: v.name,
    plural: s.plural,
    singular: s.singular,
    kind: s.kind,
    namespaced: s.scope === 'Namespaced',
    shortNames: s.shortNames,
    categories: s.categories,
    subresources: hasStatus ? ['status'] : [],
    fields: selectableFields(v),
    indexedFields: [],
    unconditionalUpdate: true,
    createOnUpdate: false,
    defaultPropagation: 'Background',
    statusMetadata: [],
    bumpsGeneration: (before, after) => !deepEqual(nonMetadata(before), nonMetadata(after)),
    ...(hasStatus ? { defaults: (o: KObject) => void delete o.status } : {}),
    validate: (o, old) => validateCustomResource(schema, o, old),
    custom: {
      crd: crdName,
      printerColumns: printerColumns(v),
      decode: (o) => pruneAndDefault(o, schema),
      ...(v.raw['deprecated'] === true
        ? {
            deprecationWarning: text(
              v.raw['deprecationWarning'],
              `${s.group}/${v.name} ${s.kind} is deprecated`,
            ),
          }
        : {}),
    },
  };
}

/** The defs a CRD serves: its served versions, the storage version first. */
export function customResourceDefs(crd: KObject): ResourceDef[] {
  const s = crdSpec(crd);
  const name = crd.metadata.name ?? '';
  return s.versions
    .filter((v) => v.served)
    .sort((a, b) => Number(b.storage) - Number(a.storage))
    .map((v) => versionDef(name, s, v));
}
