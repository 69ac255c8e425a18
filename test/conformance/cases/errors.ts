/**
 * The Status bodies of failures, and how kubemaint's kube adapter (`translate`) reads them from
 * client-node's ApiException: NotFound, AlreadyExists, Invalid with causes, the namespace a create
 * needs, and a body kind that does not match the URL.
 */
import assert from 'node:assert/strict';
import { translate } from '../../../src/adapters/kube/errors.js';
import type { CaseGroup } from '../case.js';
import { assertStatus, createPod, podPath } from '../fixtures.js';

const thrown = async (fn: () => Promise<unknown>): Promise<unknown> => {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  assert.fail('expected the API to refuse');
};

export const errorCases: CaseGroup = {
  name: 'Status errors',
  cases: [
    {
      id: '404 NotFound names the resource (core and grouped) in message and details',
      async run(b) {
        const ns = await b.namespace();
        assertStatus(await b.request('GET', podPath(ns, 'ghost')), {
          code: 404,
          reason: 'NotFound',
          message: 'pods "ghost" not found',
          details: { name: 'ghost', kind: 'pods' },
        });
        assertStatus(
          await b.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/ghost`),
          {
            code: 404,
            reason: 'NotFound',
            message: 'leases.coordination.k8s.io "ghost" not found',
            details: { name: 'ghost', group: 'coordination.k8s.io', kind: 'leases' },
          },
        );
        assertStatus(await b.request('GET', '/apis/batch/v1/namespaces/default/jobs/ghost'), {
          code: 404,
          reason: 'NotFound',
          message: 'jobs.batch "ghost" not found',
          details: { name: 'ghost', group: 'batch', kind: 'jobs' },
        });
      },
    },
    {
      id: '404 for a create in a namespace that does not exist',
      async run(b) {
        const ns = b.unique('absent');
        const reply = await b.request('POST', podPath(ns), {
          body: {
            metadata: { name: 'p' },
            spec: { containers: [{ name: 'c', image: 'i' }] },
          },
        });
        assertStatus(reply, {
          code: 404,
          reason: 'NotFound',
          message: `namespaces "${ns}" not found`,
          details: { name: ns, kind: 'namespaces' },
        });
      },
    },
    {
      id: '409 AlreadyExists on a second create of the same name',
      async run(b) {
        const ns = await b.namespace();
        await createPod(b, ns, 'twice');
        const reply = await b.request('POST', podPath(ns), {
          body: {
            metadata: { name: 'twice' },
            spec: { containers: [{ name: 'c', image: 'i' }] },
          },
        });
        assertStatus(reply, {
          code: 409,
          reason: 'AlreadyExists',
          message: 'pods "twice" already exists',
          details: { name: 'twice', kind: 'pods' },
        });
      },
    },
    {
      id: '422 Invalid lists each field error as a cause',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('POST', podPath(ns), {
          body: { metadata: { name: 'empty' }, spec: { containers: [] } },
        });
        assertStatus(reply, {
          code: 422,
          reason: 'Invalid',
          message: /^Pod "empty" is invalid: spec\.containers: Required value/,
        });
        const details = reply.json['details'] as {
          name: string;
          kind: string;
          causes: { reason: string; field: string }[];
        };
        assert.equal(details.name, 'empty');
        assert.equal(details.kind, 'Pod');
        assert.ok(
          details.causes.some(
            (c) => c.reason === 'FieldValueRequired' && c.field === 'spec.containers',
          ),
          JSON.stringify(details.causes),
        );
      },
    },
    {
      id: '400 BadRequest when the body kind does not match the URL',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('POST', podPath(ns), {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
        });
        assert.equal(reply.code, 400, reply.text);
        assert.equal(reply.json['reason'], 'BadRequest');
      },
    },
    {
      id: 'the kube adapter reads kind, reason and causes from client-node errors',
      async run(b) {
        const ns = await b.namespace();
        const missing = translate(
          await thrown(() => b.core.readNamespacedPod({ namespace: ns, name: 'ghost' })),
          'read',
        );
        assert.equal(missing.kind, 'not-found');
        assert.equal(missing.status, 404);
        assert.equal(missing.reason, 'NotFound');
        await createPod(b, ns, 'dup');
        const duplicate = translate(
          await thrown(() =>
            b.core.createNamespacedPod({
              namespace: ns,
              body: {
                metadata: { name: 'dup' },
                spec: { containers: [{ name: 'c', image: 'i' }] },
              },
            }),
          ),
          'create',
        );
        assert.equal(duplicate.kind, 'already-exists');
        const invalid = translate(
          await thrown(() =>
            b.core.createNamespacedPod({
              namespace: ns,
              body: { metadata: { name: 'bad' }, spec: { containers: [] } },
            }),
          ),
          'create',
        );
        assert.equal(invalid.kind, 'invalid');
        assert.equal(invalid.status, 422);
        assert.ok(invalid.causes.some((c) => c.field === 'spec.containers'));
      },
    },
  ],
};
