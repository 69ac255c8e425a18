/**
 * The scale subresource `kubectl scale` and autoscalers use: an autoscaling/v1 Scale made from the
 * workload, writes that change only its replicas, the Scale's resourceVersion as the precondition,
 * and the validation of the replica count.
 */
import assert from 'node:assert/strict';
import type { Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { field, MERGE, STRATEGIC } from '../fixtures.js';

async function deployment(b: Backend, ns: string, replicas: number) {
  const reply = await b.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    body: {
      metadata: { name: 'web' },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    },
  });
  assert.equal(reply.code, 201, reply.text);
  return reply.json;
}

export const scaleCases: CaseGroup = {
  name: 'Scale subresource',
  cases: [
    {
      id: 'GET scale is an autoscaling/v1 Scale with the replicas and the selector as text',
      async run(b) {
        const ns = await b.namespace();
        const created = await deployment(b, ns, 0);
        const scale = await b.request(
          'GET',
          `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`,
        );
        assert.equal(scale.code, 200, scale.text);
        assert.deepEqual(
          {
            ...scale.json,
            metadata: { ...(scale.json['metadata'] as object), resourceVersion: 'x' },
          },
          {
            kind: 'Scale',
            apiVersion: 'autoscaling/v1',
            metadata: {
              name: 'web',
              namespace: ns,
              uid: field(created, 'metadata', 'uid'),
              resourceVersion: 'x',
              creationTimestamp: field(created, 'metadata', 'creationTimestamp'),
            },
            spec: {}, // replicas is omitempty
            status: { replicas: 0, selector: 'app=web' },
          },
        );
        const discovery = await b.request('GET', '/apis/apps/v1');
        const entry = (discovery.json['resources'] as Record<string, unknown>[]).find(
          (r) => r['name'] === 'deployments/scale',
        );
        assert.deepEqual(
          { ...entry },
          {
            name: 'deployments/scale',
            singularName: '',
            namespaced: true,
            group: 'autoscaling',
            version: 'v1',
            kind: 'Scale',
            verbs: ['get', 'patch', 'update'],
          },
        );
      },
    },
    {
      id: 'a scale patch changes only spec.replicas; a stale resourceVersion is 409, a negative count 422',
      async run(b) {
        const ns = await b.namespace();
        await deployment(b, ns, 0);
        const path = `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`;
        for (const contentType of [MERGE, STRATEGIC]) {
          const patched = await b.request('PATCH', path, {
            contentType,
            body: { spec: { replicas: contentType === MERGE ? 2 : 3 } },
          });
          assert.equal(patched.code, 200, patched.text);
          assert.equal(field(patched.json, 'kind'), 'Scale');
        }
        const read = await b.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
        assert.equal(field(read.json, 'spec', 'replicas'), 3);
        assert.equal(field(read.json, 'metadata', 'generation'), 3);
        const stale = await b.request('PUT', path, {
          body: {
            kind: 'Scale',
            apiVersion: 'autoscaling/v1',
            metadata: { name: 'web', namespace: ns, resourceVersion: '1' },
            spec: { replicas: 1 },
          },
        });
        assert.equal(stale.code, 409, stale.text);
        assert.equal(stale.json['reason'], 'Conflict');
        const negative = await b.request('PATCH', path, {
          contentType: MERGE,
          body: { spec: { replicas: -1 } },
        });
        assert.equal(negative.code, 422, negative.text);
        assert.equal(
          negative.json['message'],
          'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
        );
      },
    },
  ],
};
