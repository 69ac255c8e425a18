/**
 * Leases, kubemaint's slots: optimistic concurrency on resourceVersion (409 on a stale one, 422
 * without one), create-on-PUT, AlreadyExists on a racing create, and MicroTime with six fractional
 * digits both ways.
 */
import assert from 'node:assert/strict';
import { V1MicroTime } from '@kubernetes/client-node';
import type { Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { assertStatus, meta, MERGE } from '../fixtures.js';

const leasePath = (ns: string, name = '') =>
  `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases${name ? `/${name}` : ''}`;

const MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const leaseBody = (name: string, holder: string, rv?: string) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, ...(rv ? { resourceVersion: rv } : {}) },
  spec: {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: '2026-03-01T10:00:00.123456Z',
    renewTime: '2026-03-01T10:00:00.123456Z',
    leaseTransitions: 0,
  },
});

async function created(b: Backend, ns: string, name: string) {
  const reply = await b.request('POST', leasePath(ns), { body: leaseBody(name, 'a') });
  assert.equal(reply.code, 201, reply.text);
  return String(meta(reply.json).resourceVersion);
}

const conflictMessage = (name: string) =>
  `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`;

export const leaseCases: CaseGroup = {
  name: 'Leases and optimistic concurrency',
  cases: [
    {
      id: 'PUT with the current resourceVersion wins; the same stale one then gets 409 Conflict',
      async run(b) {
        const ns = await b.namespace();
        const rv = await created(b, ns, 'slot');
        const first = await b.request('PUT', leasePath(ns, 'slot'), {
          body: leaseBody('slot', 'b', rv),
        });
        assert.equal(first.code, 200, first.text);
        assert.notEqual(meta(first.json).resourceVersion, rv);
        const second = await b.request('PUT', leasePath(ns, 'slot'), {
          body: leaseBody('slot', 'c', rv),
        });
        assertStatus(second, {
          code: 409,
          reason: 'Conflict',
          message: conflictMessage('slot'),
          details: { name: 'slot', group: 'coordination.k8s.io', kind: 'leases' },
        });
      },
    },
    {
      id: 'PUT without a resourceVersion is 422 (Leases forbid unconditional updates)',
      async run(b) {
        const ns = await b.namespace();
        await created(b, ns, 'slot');
        const reply = await b.request('PUT', leasePath(ns, 'slot'), {
          body: leaseBody('slot', 'b'),
        });
        assertStatus(reply, {
          code: 422,
          reason: 'Invalid',
          message:
            'leases.coordination.k8s.io "slot" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
          details: {
            name: 'slot',
            group: 'coordination.k8s.io',
            kind: 'leases',
            causes: [
              {
                reason: 'FieldValueInvalid',
                message: 'Invalid value: 0: must be specified for an update',
                field: 'metadata.resourceVersion',
              },
            ],
          },
        });
      },
    },
    {
      id: 'PUT of a missing Lease creates it (201)',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('PUT', leasePath(ns, 'fresh'), {
          body: leaseBody('fresh', 'a'),
        });
        assert.equal(reply.code, 201, reply.text);
        assert.equal((reply.json['spec'] as { holderIdentity: string }).holderIdentity, 'a');
      },
    },
    {
      id: 'a second create of the same Lease is 409 AlreadyExists',
      async run(b) {
        const ns = await b.namespace();
        await created(b, ns, 'slot');
        assertStatus(await b.request('POST', leasePath(ns), { body: leaseBody('slot', 'b') }), {
          code: 409,
          reason: 'AlreadyExists',
          message: 'leases.coordination.k8s.io "slot" already exists',
          details: { name: 'slot', group: 'coordination.k8s.io', kind: 'leases' },
        });
      },
    },
    {
      id: 'a merge patch carrying a stale metadata.resourceVersion is 409 Conflict',
      async run(b) {
        const ns = await b.namespace();
        const rv = await created(b, ns, 'slot');
        const ok = await b.request('PATCH', leasePath(ns, 'slot'), {
          contentType: MERGE,
          body: { metadata: { resourceVersion: rv }, spec: { holderIdentity: 'b' } },
        });
        assert.equal(ok.code, 200, ok.text);
        assertStatus(
          await b.request('PATCH', leasePath(ns, 'slot'), {
            contentType: MERGE,
            body: { metadata: { resourceVersion: rv }, spec: { holderIdentity: 'c' } },
          }),
          { code: 409, reason: 'Conflict', message: conflictMessage('slot') },
        );
      },
    },
    {
      id: 'MicroTime: six fractional digits round-trip as strings; three digits are 400',
      async run(b) {
        const ns = await b.namespace();
        const lease = await b.coordination.createNamespacedLease({
          namespace: ns,
          body: {
            metadata: { name: 'micro' },
            spec: { holderIdentity: 'a', renewTime: new V1MicroTime(Date.now()) },
          },
        });
        // client-node has no MicroTime deserializer: kubemaint gets the wire string back.
        assert.equal(typeof lease.spec?.renewTime, 'string');
        assert.match(String(lease.spec?.renewTime), MICRO);
        const coarse = leaseBody('coarse', 'a');
        coarse.spec.renewTime = '2026-03-01T10:00:00.123Z';
        const reply = await b.request('POST', leasePath(ns), { body: coarse });
        assertStatus(reply, { code: 400, reason: 'BadRequest', message: /parsing time/ });
      },
    },
  ],
};
