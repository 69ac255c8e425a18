/**
 * The OpenAPI documents: every kind and subresource the sim serves has the real apiserver's schema
 * and paths (a kind added without regenerating documents.gen.ts fails here), v2 in protobuf for the
 * kubectl versions that ask for it, v3 behind hashed URLs, and custom resources' schemas from their
 * CRDs.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startSimApi, type SimApi } from '../support.js';
import { allResources } from '../../src/resources.js';
import { CRDS } from '../../src/crd-controller.js';

type Json = Record<string, unknown>;
const REGENERATE =
  'regenerate the documents: packages/kubesim/scripts/fetch-openapi.ts (its header says how)';

function get(sim: SimApi, path: string, accept = 'application/json') {
  return new Promise<{ code: number; type: string; body: Buffer }>((resolve, reject) => {
    request(
      `${sim.api.url}${path}`,
      { ca: sim.api.caPem, headers: { authorization: `Bearer ${sim.api.token}`, accept } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            code: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            body: Buffer.concat(chunks),
          }),
        );
      },
    )
      .on('error', reject)
      .end();
  });
}
const json = async (sim: SimApi, path: string) =>
  JSON.parse((await get(sim, path)).body.toString()) as Json;

const gvPath = (group: string, version: string) =>
  group === '' ? `api/${version}` : `apis/${group}/${version}`;

describe('OpenAPI documents', () => {
  let sim: SimApi;
  before(async () => {
    sim = await startSimApi();
  });
  after(async () => sim.close());

  it('v3: every built-in kind has its schema (with its group/version/kind) and its paths', async () => {
    const index = (await json(sim, '/openapi/v3'))['paths'] as Record<string, Json>;
    for (const d of allResources()) {
      const entry = index[gvPath(d.group, d.version)];
      assert.ok(entry, `no /openapi/v3 entry for ${gvPath(d.group, d.version)}: ${REGENERATE}`);
      const url = String(entry['serverRelativeURL']);
      assert.match(url, /\?hash=[0-9A-F]{128}$/);
      const doc = await json(sim, url);
      const schemas = Object.values((doc['components'] as Json)['schemas'] as Json) as Json[];
      const gvks = schemas.flatMap(
        (s) => (s['x-kubernetes-group-version-kind'] as Json[] | undefined) ?? [],
      );
      assert.ok(
        gvks.some(
          (g) => g['group'] === d.group && g['version'] === d.version && g['kind'] === d.kind,
        ),
        `no schema for ${d.kind} in ${url}: ${REGENERATE}`,
      );
      const base = `/${gvPath(d.group, d.version)}/${d.namespaced ? 'namespaces/{namespace}/' : ''}${d.plural}/{name}`;
      const paths = doc['paths'] as Record<string, Json>;
      for (const path of [base, ...d.subresources.map((s) => `${base}/${s}`)])
        assert.ok(paths[path], `no path ${path} in ${url}: ${REGENERATE}`);
      const patch = paths[base]?.['patch'] as Json | undefined;
      const params = (patch?.['parameters'] as Json[] | undefined) ?? [];
      assert.ok(
        params.some((p) => p['name'] === 'fieldValidation'),
        `${base} PATCH takes no fieldValidation`,
      );
    }
  });

  it('v2: protobuf for kubectl 1.27/1.28, JSON otherwise, with every built-in kind', async () => {
    const pb = await get(
      sim,
      '/openapi/v2',
      'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    );
    assert.equal(pb.code, 200);
    assert.equal(pb.type, 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    // gnostic's Document: field 1 (swagger) is "2.0".
    assert.deepEqual([...pb.body.subarray(0, 5)], [0x0a, 0x03, 0x32, 0x2e, 0x30]);
    const v2 = await json(sim, '/openapi/v2');
    assert.equal(v2['swagger'], '2.0');
    const gvks = Object.values(v2['definitions'] as Json).flatMap(
      (s) => ((s as Json)['x-kubernetes-group-version-kind'] as Json[] | undefined) ?? [],
    );
    for (const d of allResources())
      assert.ok(
        gvks.some((g) => g['group'] === d.group && g['kind'] === d.kind),
        `no v2 definition for ${d.kind}: ${REGENERATE}`,
      );
    assert.equal((await get(sim, '/openapi/v3/apis/nothing.example/v1')).code, 404);
  });

  it("v3 for custom resources: the CRD's schema under its group/version/kind, PATCH with fieldValidation", async () => {
    sim.store.create(CRDS, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', description: 'What a widget is.' } },
              },
            },
          },
        ],
      },
    });
    const index = (await json(sim, '/openapi/v3'))['paths'] as Record<string, Json>;
    const url = String(index['apis/example.com/v1']?.['serverRelativeURL']);
    const doc = await json(sim, url);
    const schemas = (doc['components'] as Json)['schemas'] as Record<string, Json>;
    const widget = schemas['com.example.v1.Widget'];
    assert.deepEqual(widget?.['x-kubernetes-group-version-kind'], [
      { group: 'example.com', version: 'v1', kind: 'Widget' },
    ]);
    const properties = widget?.['properties'] as Record<string, Json>;
    assert.equal(properties['spec']?.['description'], 'What a widget is.');
    assert.ok(properties['metadata'] && schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    assert.ok(schemas['com.example.v1.WidgetList']);
    const patch = (doc['paths'] as Record<string, Json>)[
      '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'
    ]?.['patch'] as Json;
    assert.ok((patch['parameters'] as Json[]).some((p) => p['name'] === 'fieldValidation'));
  });
});
