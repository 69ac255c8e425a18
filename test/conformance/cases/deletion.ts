/**
 * Deletes as kubemaint sends them: graceful deletion of a pod on a node (deletionTimestamp and
 * deletionGracePeriodSeconds; a second delete may only shorten it; grace 0 removes it), immediate
 * removal of a pod that never reached a node, UID and resourceVersion preconditions, the answer bodies
 * (the pod for pods, a Success Status for others), and propagationPolicy for a Job's pods.
 */
import assert from 'node:assert/strict';
import type { CaseGroup } from '../case.js';
import {
  assertStatus,
  createPod,
  fakeNode,
  field,
  markRunning,
  meta,
  objectWhen,
  podPath,
} from '../fixtures.js';

export const deletionCases: CaseGroup = {
  name: 'Graceful deletion and preconditions',
  cases: [
    {
      id: 'a pod on a node is deleted gracefully; a later delete only shortens the grace period',
      async run(b) {
        const ns = await b.namespace();
        const node = await fakeNode(b);
        await createPod(b, ns, 'slow', { spec: { nodeName: node } });
        await markRunning(b, ns, 'slow');
        const first = await b.request('DELETE', podPath(ns, 'slow'), {
          body: { gracePeriodSeconds: 60 },
        });
        assert.equal(first.code, 200, first.text);
        assert.equal(first.json['kind'], 'Pod', 'a pod delete answers the pod');
        const stamp = String(meta(first.json)['deletionTimestamp']);
        assert.equal(meta(first.json)['deletionGracePeriodSeconds'], 60);
        const delay = Date.parse(stamp) - Date.parse(String(meta(first.json)['creationTimestamp']));
        assert.ok(delay >= 55_000 && delay <= 70_000, `deletionTimestamp is now + 60 s (${delay})`);
        const longer = await b.request('DELETE', podPath(ns, 'slow'), {
          body: { gracePeriodSeconds: 120 },
        });
        assert.equal(longer.code, 200, longer.text);
        assert.equal(meta(longer.json)['deletionGracePeriodSeconds'], 60);
        const shorter = await b.request('DELETE', podPath(ns, 'slow'), {
          body: { gracePeriodSeconds: 10 },
        });
        assert.equal(meta(shorter.json)['deletionGracePeriodSeconds'], 10);
        assert.ok(String(meta(shorter.json)['deletionTimestamp']) < stamp);
        // With no kubelet to finish it, the pod stays until a forced (grace 0) delete.
        assert.equal((await b.request('GET', podPath(ns, 'slow'))).code, 200);
        const forced = await b.request('DELETE', podPath(ns, 'slow'), {
          body: { gracePeriodSeconds: 0 },
        });
        assert.equal(forced.code, 200, forced.text);
        assert.equal((await b.request('GET', podPath(ns, 'slow'))).code, 404);
      },
    },
    {
      id: 'a pod that never reached a node is removed at once, and the answer is the pod',
      async run(b) {
        const ns = await b.namespace();
        await createPod(b, ns, 'unbound');
        const reply = await b.request('DELETE', podPath(ns, 'unbound'));
        assert.equal(reply.code, 200, reply.text);
        assert.equal(reply.json['kind'], 'Pod');
        assert.equal((await b.request('GET', podPath(ns, 'unbound'))).code, 404);
      },
    },
    {
      id: 'preconditions: a wrong uid or resourceVersion is 409 Conflict and deletes nothing',
      async run(b) {
        const ns = await b.namespace();
        // Bound to a node that does not exist: no scheduler writes the pod meanwhile.
        const pod = await createPod(b, ns, 'kept', { spec: { nodeName: 'conf-nowhere' } });
        const uid = String(meta(pod).uid);
        const wrongUid = await b.request('DELETE', podPath(ns, 'kept'), {
          body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
        });
        assertStatus(wrongUid, {
          code: 409,
          reason: 'Conflict',
          message: `Operation cannot be fulfilled on Pod "kept": the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
          details: { name: 'kept', kind: 'Pod' },
        });
        const wrongRv = await b.request('DELETE', podPath(ns, 'kept'), {
          body: { preconditions: { resourceVersion: '1' } },
        });
        assertStatus(wrongRv, {
          code: 409,
          reason: 'Conflict',
          message: `Operation cannot be fulfilled on Pod "kept": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${String(meta(pod).resourceVersion)}). The object might have been modified`,
          details: { name: 'kept', kind: 'Pod' },
        });
        assert.equal((await b.request('GET', podPath(ns, 'kept'))).code, 200);
        const right = await b.request('DELETE', podPath(ns, 'kept'), {
          body: { preconditions: { uid } },
        });
        assert.equal(right.code, 200, right.text);
      },
    },
    {
      id: 'deleting a non-pod answers a Success Status with name, group, kind and uid',
      async run(b) {
        const ns = await b.namespace();
        const lease = await b.request(
          'POST',
          `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
          {
            body: { metadata: { name: 'gone' }, spec: {} },
          },
        );
        const reply = await b.request(
          'DELETE',
          `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/gone`,
        );
        assert.equal(reply.code, 200, reply.text);
        assert.deepEqual(reply.json, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: {
            name: 'gone',
            group: 'coordination.k8s.io',
            kind: 'leases',
            uid: meta(lease.json).uid,
          },
        });
      },
    },
    {
      id: 'an unknown propagationPolicy is refused',
      async run(b) {
        const ns = await b.namespace();
        await createPod(b, ns, 'p');
        const reply = await b.request('DELETE', podPath(ns, 'p'), {
          body: { propagationPolicy: 'Sideways' },
        });
        const unsupported =
          'Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"';
        assertStatus(reply, {
          code: 422,
          reason: 'Invalid',
          message: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: ${unsupported}`,
          details: {
            group: 'meta.k8s.io',
            kind: 'DeleteOptions',
            causes: [
              {
                reason: 'FieldValueNotSupported',
                message: unsupported,
                field: 'propagationPolicy',
              },
            ],
          },
        });
        assert.equal((await b.request('GET', podPath(ns, 'p'))).code, 200);
      },
    },
    {
      id: "propagationPolicy: Background removes a Job's pods, Orphan (the Job default) keeps them unowned",
      async run(b) {
        const ns = await b.namespace();
        const job = (name: string) => ({
          metadata: { name },
          spec: {
            backoffLimit: 0,
            template: {
              spec: {
                restartPolicy: 'Never',
                containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
              },
            },
          },
        });
        const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
        const podsOf = async (name: string) => {
          const reply = await b.request('GET', `${podPath(ns)}?labelSelector=job-name%3D${name}`);
          return reply.json['items'] as Record<string, unknown>[];
        };
        for (const name of ['cascade', 'orphan']) {
          assert.equal((await b.request('POST', jobs, { body: job(name) })).code, 201);
        }
        for (const name of ['cascade', 'orphan']) {
          await objectWhen(b, `${jobs}/${name}`, `job ${name} started`, () => true);
          const pods = await (async () => {
            for (let i = 0; i < 200; i++) {
              const found = await podsOf(name);
              if (found.length > 0) return found;
              await new Promise((r) => setTimeout(r, 100));
            }
            return [];
          })();
          assert.equal(pods.length, 1, `the Job controller made a pod for ${name}`);
        }
        const cascade = await b.request('DELETE', `${jobs}/cascade`, {
          body: { propagationPolicy: 'Background' },
        });
        assert.equal(cascade.code, 200, cascade.text);
        const orphan = await b.request('DELETE', `${jobs}/orphan`);
        assert.equal(orphan.code, 200, orphan.text);
        await objectWhen(
          b,
          `${podPath(ns)}?labelSelector=job-name%3Dcascade`,
          'the pod gone',
          (l) => (l['items'] as unknown[]).length === 0,
        );
        const kept = await objectWhen(
          b,
          `${podPath(ns)}?labelSelector=job-name%3Dorphan`,
          'the orphan released',
          (l) => {
            const items = l['items'] as Record<string, unknown>[];
            return (
              items.length === 1 && field(items[0], 'metadata', 'ownerReferences') === undefined
            );
          },
        );
        assert.equal((kept['items'] as unknown[]).length, 1);
        await objectWhen(b, jobs, 'both Jobs gone', (l) => (l['items'] as unknown[]).length === 0);
      },
    },
  ],
};
