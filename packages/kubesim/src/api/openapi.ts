/**
 * The smallest OpenAPI v3 that keeps `kubectl apply/create -f` working without `--validate=false`.
 * kubectl 1.27+ asks `/openapi/v3` whether each kind's PATCH takes the `fieldValidation` query
 * parameter; when it does, kubectl leaves validation to the server instead of downloading schemas.
 * The PATCH operations carry no request body types, so kubectl apply computes its strategic merge
 * patch from its compiled-in types rather than from (absent) OpenAPI schemas. `/openapi/v2` stays
 * 404: kubectl only needs it for kinds the v3 documents do not cover.
 */
import type { ResourceRegistry } from '../resource-registry.js';
import { apiVersionOf, type ResourceDef } from '../resources.js';
import { StatusError } from '../types.js';

const gvPath = (group: string, version: string) =>
  group === '' ? `api/${version}` : `apis/${group}/${version}`;

export function openApiV3Index(resources: ResourceRegistry) {
  const gvs = new Set(resources.all().map((d) => gvPath(d.group, d.version)));
  return {
    paths: Object.fromEntries(
      [...gvs].map((p) => [p, { serverRelativeURL: `/openapi/v3/${p}?hash=sim1` }]),
    ),
  };
}

function objectPath(d: ResourceDef): string {
  const base = `/${gvPath(d.group, d.version)}`;
  return d.namespaced
    ? `${base}/namespaces/{namespace}/${d.plural}/{name}`
    : `${base}/${d.plural}/{name}`;
}

export function openApiV3Document(
  path: string,
  serverVersion: string,
  resources: ResourceRegistry,
) {
  const defs = resources.all().filter((d) => gvPath(d.group, d.version) === path);
  if (defs.length === 0)
    throw new StatusError(
      404,
      'NotFound',
      `the server could not find the requested resource (no OpenAPI for ${path})`,
    );
  const paths = Object.fromEntries(
    defs.map((d) => [
      objectPath(d),
      {
        patch: {
          operationId: `patch${d.kind}`,
          'x-kubernetes-action': 'patch',
          'x-kubernetes-group-version-kind': { group: d.group, version: d.version, kind: d.kind },
          parameters: [
            { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
            { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
            { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          ],
          responses: { '200': { description: 'OK' } },
        },
      },
    ]),
  );
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes (kubemaint sim)', version: serverVersion },
    paths,
    components: { schemas: {} },
    'x-kubemaint-group-versions': [...new Set(defs.map((d) => apiVersionOf(d)))],
  };
}
