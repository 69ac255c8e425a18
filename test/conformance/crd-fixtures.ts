/**
 * CRDs for the custom-resource cases: the approval model's MaintenanceRequest and
 * MaintenanceApproval, read from test/real/fixtures/approval-model.yaml and moved to a group of the
 * case's own (so cases never meet each other's objects, nor the CRDs that other suites install under
 * kubemaint.io), and a small cluster-scoped CRD without a status subresource. Each is created,
 * waited for until Established and served, and deleted by the case's cleanup.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { eventually, type Backend } from './backend.js';
import { conditionsOf } from './fixtures.js';

type Obj = Record<string, unknown>;

const FIXTURE = new URL('../real/fixtures/approval-model.yaml', import.meta.url);

export interface ModelCrds {
  group: string;
  /** `/apis/<group>/v1alpha1` */
  base: string;
  requests: (ns: string, name?: string) => string;
  approvals: (ns: string, name?: string) => string;
  apiVersion: string;
}

const crdPath = (name = '') =>
  `/apis/apiextensions.k8s.io/v1/customresourcedefinitions${name ? `/${name}` : ''}`;

/** Creates a CRD, deletes it in the case's cleanup, and waits until its resource is served. */
export async function installCrd(b: Backend, crd: Obj): Promise<Obj> {
  const name = (crd['metadata'] as Obj)['name'] as string;
  const created = await b.request('POST', crdPath(), { body: crd });
  assert.equal(created.code, 201, created.text);
  b.defer(() => b.request('DELETE', crdPath(name)));
  const spec = crd['spec'] as Obj;
  const version = ((spec['versions'] as Obj[])[0] as Obj)['name'] as string;
  const plural = (spec['names'] as Obj)['plural'] as string;
  return eventually(`${name} established and served`, async () => {
    const read = await b.request('GET', crdPath(name));
    const established = conditionsOf(read.json).some(
      (c) => c['type'] === 'Established' && c['status'] === 'True',
    );
    if (!established) return undefined;
    const list = await b.request('GET', `/apis/${spec['group'] as string}/${version}/${plural}`);
    return list.code === 200 ? read.json : undefined;
  });
}

/** The approval model's two CRDs, in a group of this case's own. */
export async function installModel(b: Backend): Promise<ModelCrds> {
  const group = `${b.unique('m')}.conformance.kubemaint.io`;
  const crds = parseAllDocuments(readFileSync(FIXTURE, 'utf8'))
    .map((d) => d.toJSON() as Obj)
    .filter((d) => d['kind'] === 'CustomResourceDefinition');
  assert.equal(crds.length, 2, 'the fixture has the two CRDs');
  for (const crd of crds) {
    const spec = crd['spec'] as Obj;
    spec['group'] = group;
    (crd['metadata'] as Obj)['name'] = `${(spec['names'] as Obj)['plural'] as string}.${group}`;
    await installCrd(b, crd);
  }
  const base = `/apis/${group}/v1alpha1`;
  const at = (plural: string) => (ns: string, name?: string) =>
    `${base}/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
  return {
    group,
    base,
    requests: at('maintenancerequests'),
    approvals: at('maintenanceapprovals'),
    apiVersion: `${group}/v1alpha1`,
  };
}

export function requestBody(m: ModelCrds, name: string, spec: Obj, extra: Obj = {}): Obj {
  return {
    apiVersion: m.apiVersion,
    kind: 'MaintenanceRequest',
    metadata: { name },
    spec,
    ...extra,
  };
}

/**
 * A cluster-scoped CRD without a status subresource: a default, a pattern, a list, a map, an
 * unvalidated (preserved) field, and a rule with a messageExpression. `group` reinstalls one.
 */
export async function installGadgets(
  b: Backend,
  group = `${b.unique('g')}.conformance.kubemaint.io`,
): Promise<{ group: string; path: (name?: string) => string }> {
  await installCrd(b, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: {
      group,
      scope: 'Cluster',
      names: {
        kind: 'Gadget',
        plural: 'gadgets',
        listKind: 'GadgetList',
        categories: ['conformance'],
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          additionalPrinterColumns: [
            { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
            { name: 'Mode', type: 'string', jsonPath: '.spec.mode', priority: 1 },
            { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  'x-kubernetes-validations': [
                    {
                      rule: 'self.size <= 10 || self.mode == "big"',
                      // string(int) in a messageExpression is over the apiserver's cost budget; a bounded string is not.
                      messageExpression: "'size too big for mode ' + self.mode",
                      fieldPath: '.size',
                    },
                  ],
                  properties: {
                    size: { type: 'integer', minimum: 0 },
                    mode: { type: 'string', default: 'small', pattern: '^[a-z]+$', maxLength: 10 },
                    tags: { type: 'array', maxItems: 3, items: { type: 'string' } },
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
    },
  });
  return {
    group,
    path: (name) => `/apis/${group}/v1/gadgets${name ? `/${name}` : ''}`,
  };
}

export const causesOf = (body: Obj): Obj[] =>
  [...(((body['details'] as Obj | undefined)?.['causes'] as Obj[] | undefined) ?? [])].sort(
    (a, b) => String(a['field']).localeCompare(String(b['field'])),
  );
