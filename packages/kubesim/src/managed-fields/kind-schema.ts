/**
 * The schema a kind is merged and tracked by: for built-in kinds the real apiserver's OpenAPI v3
 * (api/openapi/documents.ts), for custom resources their CRD version's schema, its metadata being
 * ObjectMeta as upstream makes it.
 */
import { openApiDocuments } from '../api/openapi/documents.js';
import { CRDS } from '../crd-controller.js';
import type { ResourceDef } from '../resources.js';
import type { Store } from '../types.js';
import { typeOf, type SchemaRef, type TypeNode } from './schema.js';

type Json = Record<string, unknown>;
const PREFIX = '#/components/schemas/';
const OBJECT_META = `${PREFIX}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`;

const schemasOf = (path: string): Json =>
  (((openApiDocuments().v3[path]?.['components'] ?? {}) as Json)['schemas'] ?? {}) as Json;

const resolverFor = (schemas: Json) => (ref: string) =>
  ref.startsWith(PREFIX) ? (schemas[ref.slice(PREFIX.length)] as Json | undefined) : undefined;

const byKind = new Map<string, SchemaRef | null>();

function builtIn(d: ResourceDef): SchemaRef | undefined {
  const key = `${d.group}/${d.version}/${d.kind}`;
  const known = byKind.get(key);
  if (known !== undefined) return known ?? undefined;
  const path = d.group === '' ? `api/${d.version}` : `apis/${d.group}/${d.version}`;
  const schemas = schemasOf(path);
  const node = Object.values(schemas).find((s) =>
    (((s as Json)['x-kubernetes-group-version-kind'] ?? []) as Json[]).some(
      (g) => g['group'] === d.group && g['version'] === d.version && g['kind'] === d.kind,
    ),
  ) as Json | undefined;
  const ref = node ? { node, resolve: resolverFor(schemas) } : undefined;
  byKind.set(key, ref ?? null);
  return ref;
}

function custom(d: ResourceDef, store: Store): SchemaRef {
  const crd = store.get(CRDS, undefined, d.custom?.crd ?? '');
  const versions = (crd?.spec?.['versions'] as Json[] | undefined) ?? [];
  const version = versions.find((v) => v['name'] === d.version);
  const schema = ((version?.['schema'] as Json | undefined)?.['openAPIV3Schema'] ?? {}) as Json;
  const properties = (schema['properties'] ?? {}) as Json;
  return {
    node: {
      ...schema,
      type: 'object',
      properties: { ...properties, metadata: { $ref: OBJECT_META } },
    },
    resolve: resolverFor(schemasOf('api/v1')),
  };
}

/** The kind's type, or a deduced one when there is no schema (every field then a leaf or a map). */
export function kindType(d: ResourceDef, store: Store): TypeNode {
  const ref = d.custom ? custom(d, store) : builtIn(d);
  return ref ? typeOf(ref) : { kind: 'deduced' };
}
