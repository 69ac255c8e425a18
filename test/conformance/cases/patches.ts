/**
 * PATCH as kubemaint and kubectl send it: strategic merge (lists with a merge key merged by it, lists
 * without one replaced, null deletes), JSON merge patch (lists replaced), JSON patch (ops, a failed
 * `test` is 422, an object body is the 400 client-node's default content type causes), and the answer
 * to a content type that is not a patch type.
 */
import assert from 'node:assert/strict';
import type { CaseGroup } from '../case.js';
import {
  assertStatus,
  conditionsOf,
  createPod,
  fakeNode,
  field,
  JSON_PATCH,
  MERGE,
  podPath,
  STRATEGIC,
} from '../fixtures.js';

type Obj = Record<string, unknown>;
/** kube-apiserver says no more than this about a JSON patch that does not apply. */
const REJECTED = /^the server rejected our request due to an error in our request/;
const names = (list: unknown, key = 'name') => ((list as Obj[]) ?? []).map((o) => o[key]);

export const patchCases: CaseGroup = {
  name: 'Patch types',
  cases: [
    {
      id: 'strategic merge on Node status merges conditions by type',
      async run(b) {
        const node = await fakeNode(b);
        const reply = await b.request('PATCH', `/api/v1/nodes/${node}/status`, {
          contentType: STRATEGIC,
          body: {
            status: {
              conditions: [
                {
                  type: 'ConformanceProbe',
                  status: 'True',
                  reason: 'Probe',
                  lastHeartbeatTime: '2026-03-01T10:00:00Z',
                  lastTransitionTime: '2026-03-01T10:00:00Z',
                },
              ],
            },
          },
        });
        assert.equal(reply.code, 200, reply.text);
        assert.deepEqual(names(conditionsOf(reply.json), 'type').sort(), [
          'ConformanceProbe',
          'Ready',
        ]);
      },
    },
    {
      id: 'strategic merge on Node spec replaces taints (no merge key) and null deletes',
      async run(b) {
        const node = await fakeNode(b, {
          taints: [{ key: 'conf/a', effect: 'NoSchedule' }],
        });
        const reply = await b.request('PATCH', `/api/v1/nodes/${node}`, {
          contentType: STRATEGIC,
          body: {
            metadata: { labels: { 'kubernetes.io/hostname': null, extra: 'yes' } },
            spec: { taints: [{ key: 'conf/b', effect: 'NoSchedule' }] },
          },
        });
        assert.equal(reply.code, 200, reply.text);
        assert.deepEqual(names(field(reply.json, 'spec', 'taints'), 'key'), ['conf/b']);
        assert.deepEqual(field(reply.json, 'metadata', 'labels'), { extra: 'yes' });
      },
    },
    {
      id: 'strategic merge on Pod spec merges containers by name',
      async run(b) {
        const ns = await b.namespace();
        await createPod(b, ns, 'two', {
          spec: {
            containers: [
              { name: 'main', image: 'registry.k8s.io/pause:3.10' },
              { name: 'side', image: 'registry.k8s.io/pause:3.10' },
            ],
          },
        });
        const reply = await b.request('PATCH', podPath(ns, 'two'), {
          contentType: STRATEGIC,
          body: { spec: { containers: [{ name: 'side', image: 'registry.k8s.io/pause:3.9' }] } },
        });
        assert.equal(reply.code, 200, reply.text);
        const containers = field(reply.json, 'spec', 'containers') as Obj[];
        assert.deepEqual(
          containers.map((c) => [c['name'], c['image']]),
          [
            ['main', 'registry.k8s.io/pause:3.10'],
            ['side', 'registry.k8s.io/pause:3.9'],
          ],
        );
      },
    },
    {
      id: 'JSON merge patch: null deletes a key and lists are replaced whole',
      async run(b) {
        const node = await fakeNode(b);
        await b.request('PATCH', `/api/v1/nodes/${node}/status`, {
          contentType: STRATEGIC,
          body: { status: { conditions: [{ type: 'ConformanceProbe', status: 'True' }] } },
        });
        const reply = await b.request('PATCH', `/api/v1/nodes/${node}/status`, {
          contentType: MERGE,
          body: {
            metadata: { annotations: { a: '1' } },
            status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Probe' }] },
          },
        });
        assert.equal(reply.code, 200, reply.text);
        assert.deepEqual(names(conditionsOf(reply.json), 'type'), ['Ready']);
        const gone = await b.request('PATCH', `/api/v1/nodes/${node}`, {
          contentType: MERGE,
          body: { metadata: { labels: { 'kubernetes.io/hostname': null } } },
        });
        assert.equal(field(gone.json, 'metadata', 'labels'), undefined);
      },
    },
    {
      id: 'JSON patch applies add/replace/remove; a failed test op is 422 and changes nothing',
      async run(b) {
        // A ConfigMap: no controller writes it meanwhile (the TTL controller annotates nodes).
        const ns = await b.namespace();
        const path = `/api/v1/namespaces/${ns}/configmaps/jp`;
        const made = await b.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          body: { metadata: { name: 'jp' } },
        });
        assert.equal(made.code, 201, made.text);
        const ok = await b.request('PATCH', path, {
          contentType: JSON_PATCH,
          body: [
            { op: 'add', path: '/metadata/annotations', value: { a: '1', b: '2' } },
            { op: 'replace', path: '/metadata/annotations/a', value: '3' },
            { op: 'remove', path: '/metadata/annotations/b' },
            { op: 'test', path: '/metadata/annotations/a', value: '3' },
          ],
        });
        assert.equal(ok.code, 200, ok.text);
        assert.deepEqual(field(ok.json, 'metadata', 'annotations'), { a: '3' });
        const failed = await b.request('PATCH', path, {
          contentType: JSON_PATCH,
          body: [
            { op: 'replace', path: '/metadata/annotations/a', value: '4' },
            { op: 'test', path: '/metadata/annotations/a', value: 'nope' },
          ],
        });
        assertStatus(failed, { code: 422, reason: 'Invalid', message: REJECTED });
        const after = await b.request('GET', path);
        assert.deepEqual(field(after.json, 'metadata', 'annotations'), { a: '3' });
      },
    },
    {
      id: 'JSON patch removing a missing path is 422',
      async run(b) {
        const node = await fakeNode(b);
        const reply = await b.request('PATCH', `/api/v1/nodes/${node}`, {
          contentType: JSON_PATCH,
          body: [{ op: 'remove', path: '/metadata/annotations/nope' }],
        });
        assertStatus(reply, { code: 422, reason: 'Invalid', message: REJECTED });
      },
    },
    {
      id: "an object body sent as JSON patch (client-node's default) is 400 with the decoding error",
      async run(b) {
        const node = await fakeNode(b);
        assertStatus(
          await b.request('PATCH', `/api/v1/nodes/${node}`, {
            contentType: JSON_PATCH,
            body: { spec: { unschedulable: true } },
          }),
          {
            code: 400,
            reason: 'BadRequest',
            message:
              /json: cannot unmarshal object into Go value of type \[\]handlers\.jsonPatchOp/,
          },
        );
      },
    },
    {
      id: 'a content type that is no patch type is 415 UnsupportedMediaType',
      async run(b) {
        const node = await fakeNode(b);
        for (const contentType of ['application/json', 'text/plain']) {
          assertStatus(
            await b.request('PATCH', `/api/v1/nodes/${node}`, {
              contentType,
              body: { spec: { unschedulable: true } },
            }),
            {
              code: 415,
              reason: 'UnsupportedMediaType',
              message: '415: Unsupported Media Type',
            },
          );
        }
      },
    },
  ],
};
