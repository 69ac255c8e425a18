/**
 * OpenAPI v3 for the group versions CustomResourceDefinitions serve, built from the CRDs as
 * kube-apiserver builds them: each kind's schema is its version's `openAPIV3Schema` with apiVersion,
 * kind and metadata added and its group/version/kind named, beside its List and the meta/v1 schemas
 * they refer to (taken from the real documents). The paths are fewer than upstream's: one object path
 * per resource with its PATCH, the operation kubectl reads (does it take `fieldValidation`?).
 */
import { CRDS } from '../../crd-controller.js';
import type { ResourceDef } from '../../resources.js';
import type { Store } from '../../types.js';
import { openApiDocuments, type Json } from './documents.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const ref = (name: string) => `#/components/schemas/${name}`;

/** `kubemaint.io` + `v1alpha1` + `MaintenanceRequest` → `io.kubemaint.v1alpha1.MaintenanceRequest`. */
const schemaName = (d: ResourceDef, kind = d.kind) =>
  `${d.group.split('.').reverse().join('.')}.${d.version}.${kind}`;

/** A schema and everything it refers to, from the real core/v1 document. */
function withReferences(names: readonly string[], from: Json, into: Json): void {
  for (const name of names) {
    if (name in into || !(name in from)) continue;
    into[name] = from[name];
    const text = JSON.stringify(from[name]);
    const refs = [...text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1] ?? '');
    withReferences(refs, from, into);
  }
}

function versionSchema(store: Store, d: ResourceDef): Json {
  const crd = store.get(CRDS, undefined, d.custom?.crd ?? '');
  const versions = (crd?.spec?.['versions'] as Json[] | undefined) ?? [];
  const version = versions.find((v) => v['name'] === d.version);
  return ((version?.['schema'] as Json | undefined)?.['openAPIV3Schema'] as Json) ?? {};
}

function objectPath(d: ResourceDef): string {
  const base = `/apis/${d.group}/${d.version}`;
  return d.namespaced
    ? `${base}/namespaces/{namespace}/${d.plural}/{name}`
    : `${base}/${d.plural}/{name}`;
}

const query = (name: string) => ({
  name,
  in: 'query',
  schema: { type: 'string', uniqueItems: true },
});

export function customResourceDocument(store: Store, defs: readonly ResourceDef[]): Json {
  const core = (openApiDocuments().v3['api/v1']?.['components'] as Json)['schemas'] as Json;
  const template = (core['io.k8s.api.core.v1.ConfigMap'] as Json)['properties'] as Json;
  const listTemplate = (core['io.k8s.api.core.v1.ConfigMapList'] as Json)['properties'] as Json;
  const schemas: Json = {};
  withReferences([`${META}.ObjectMeta`, `${META}.ListMeta`], core, schemas);
  const paths: Json = {};
  for (const d of defs) {
    const gvk = (kind: string) => [{ group: d.group, version: d.version, kind }];
    const schema = versionSchema(store, d);
    schemas[schemaName(d)] = {
      ...schema,
      properties: {
        apiVersion: template['apiVersion'],
        kind: template['kind'],
        metadata: template['metadata'],
        ...(schema['properties'] as Json | undefined),
      },
      'x-kubernetes-group-version-kind': gvk(d.kind),
    };
    schemas[schemaName(d, `${d.kind}List`)] = {
      description: `${d.kind}List is a list of ${d.kind}`,
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: listTemplate['apiVersion'],
        items: {
          description: `List of ${d.plural}.`,
          type: 'array',
          items: { $ref: ref(schemaName(d)) },
        },
        kind: listTemplate['kind'],
        metadata: listTemplate['metadata'],
      },
      'x-kubernetes-group-version-kind': gvk(`${d.kind}List`),
    };
    paths[objectPath(d)] = {
      patch: {
        operationId: `patch${d.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': gvk(d.kind)[0],
        parameters: [query('dryRun'), query('fieldManager'), query('fieldValidation')],
        responses: {
          '200': {
            description: 'OK',
            content: { 'application/json': { schema: { $ref: ref(schemaName(d)) } } },
          },
        },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' },
    paths,
    components: { schemas },
  };
}
