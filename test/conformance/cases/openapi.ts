/**
 * The OpenAPI documents kubectl reads: v3 (every kubectl from 1.27: whether a PATCH takes
 * `fieldValidation`, and the schemas `kubectl explain` prints) behind an index of content-hashed
 * URLs, and v2 in gnostic's protobuf form (kubectl 1.27 and 1.28 fetch it for apply and diff).
 */
import assert from 'node:assert/strict';
import type { CaseGroup } from '../case.js';

type Json = Record<string, unknown>;

export const openApiCases: CaseGroup = {
  name: 'OpenAPI',
  cases: [
    {
      id: 'the v3 index names each group version by a content hash; apps/v1 has Deployment and its PATCH',
      async run(b) {
        const index = await b.request('GET', '/openapi/v3');
        assert.equal(index.code, 200);
        const paths = index.json['paths'] as Record<string, { serverRelativeURL: string }>;
        const url = paths['apis/apps/v1']?.serverRelativeURL ?? '';
        assert.match(url, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
        assert.ok(paths['api/v1'] && paths['apis/batch/v1'] && paths['apis/policy/v1']);
        const doc = await b.request('GET', url);
        assert.equal(doc.code, 200);
        assert.equal(doc.json['openapi'], '3.0.0');
        const schemas = (doc.json['components'] as Json)['schemas'] as Record<string, Json>;
        const deployment = schemas['io.k8s.api.apps.v1.Deployment'];
        assert.deepEqual(deployment?.['x-kubernetes-group-version-kind'], [
          { group: 'apps', kind: 'Deployment', version: 'v1' },
        ]);
        const spec = schemas['io.k8s.api.apps.v1.DeploymentSpec']?.['properties'] as Json;
        assert.match(String((spec['replicas'] as Json)['description']), /Number of desired pods/);
        const patch = (doc.json['paths'] as Record<string, Json>)[
          '/apis/apps/v1/namespaces/{namespace}/deployments/{name}'
        ]?.['patch'] as Json;
        const params = (patch['parameters'] as Json[]).map((p) => p['name']);
        assert.ok(params.includes('fieldValidation') && params.includes('fieldManager'));
      },
    },
    {
      id: 'v2 is served in protobuf to the Accept kubectl 1.27 sends, and as JSON otherwise',
      async run(b) {
        const pb = await b.request('GET', '/openapi/v2', {
          accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
        });
        assert.equal(pb.code, 200);
        assert.equal(
          pb.headers['content-type'],
          'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
        );
        // gnostic's openapi_v2.Document starts with field 1, swagger: "2.0".
        assert.deepEqual([...pb.raw.subarray(0, 5)], [0x0a, 0x03, 0x32, 0x2e, 0x30]);
        const json = await b.request('GET', '/openapi/v2');
        assert.equal(json.code, 200);
        assert.equal(json.json['swagger'], '2.0');
        const definitions = json.json['definitions'] as Record<string, Json>;
        assert.deepEqual(
          definitions['io.k8s.api.core.v1.Pod']?.['x-kubernetes-group-version-kind'],
          [{ group: '', kind: 'Pod', version: 'v1' }],
        );
      },
    },
  ],
};
