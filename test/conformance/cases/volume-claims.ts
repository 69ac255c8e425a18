/**
 * PersistentVolumeClaims on a cluster without volumes or a default StorageClass (both backends): a
 * claim is defaulted (Filesystem, Pending), protected by the `kubernetes.io/pvc-protection`
 * finalizer, stays Pending with the PV controller's `FailedBinding` Event, and a delete of a claim no
 * pod uses completes; a pod that mounts an unbound or missing claim is not scheduled, and says why.
 */
import assert from 'node:assert/strict';
import { eventually } from '../backend.js';
import type { CaseGroup } from '../case.js';
import {
  conditionsOf,
  createPod,
  fakeNode,
  field,
  meta,
  objectWhen,
  podPath,
} from '../fixtures.js';

type Obj = Record<string, unknown>;

export const volumeClaimCases: CaseGroup = {
  name: 'PersistentVolumeClaims',
  cases: [
    {
      id: 'a claim without a storage class stays Pending, protected, and says why; deleting it completes',
      async run(b) {
        const ns = await b.namespace();
        const path = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
        const created = await b.request('POST', path, {
          body: {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        });
        assert.equal(created.code, 201, created.text);
        assert.deepEqual(meta(created.json)['finalizers'], ['kubernetes.io/pvc-protection']);
        assert.equal(field(created.json, 'spec', 'volumeMode'), 'Filesystem');
        assert.equal(field(created.json, 'status', 'phase'), 'Pending');
        assert.equal(field(created.json, 'spec', 'storageClassName'), undefined);

        const event = await eventually('the FailedBinding event', async () => {
          const list = await b.request(
            'GET',
            `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Ddata`,
          );
          return ((list.json['items'] ?? []) as Obj[]).find((e) => e['reason'] === 'FailedBinding');
        });
        assert.equal(event['type'], 'Normal');
        assert.equal(
          event['message'],
          'no persistent volumes available for this claim and no storage class is set',
        );
        assert.equal(field(event, 'source', 'component'), 'persistentvolume-controller');

        const invalid = await b.request('POST', path, {
          body: {
            metadata: { name: 'empty' },
            spec: { resources: { requests: { storage: '1Gi' } } },
          },
        });
        assert.equal(invalid.code, 422, invalid.text);
        assert.match(
          String(invalid.json['message']),
          /spec\.accessModes: Required value: at least 1 access mode is required/,
        );

        const deleted = await b.request('DELETE', `${path}/data`);
        assert.equal(deleted.code, 200, deleted.text);
        await eventually('the claim gone', async () =>
          (await b.request('GET', `${path}/data`)).code === 404 ? true : undefined,
        );
      },
    },
    {
      id: 'a pod that mounts an unbound or a missing claim stays unscheduled, and says why',
      async run(b) {
        const ns = await b.namespace();
        // A node it would fit (without any, the scheduler says only that there are no nodes).
        await fakeNode(b);
        const claim = await b.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
          body: {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        });
        assert.equal(claim.code, 201, claim.text);
        const mounting = (name: string) => ({
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }],
        });
        await createPod(b, ns, 'unbound', { spec: mounting('data') });
        await createPod(b, ns, 'missing', { spec: mounting('nowhere') });
        const why = async (pod: string) => {
          const seen = await objectWhen(b, podPath(ns, pod), `${pod} unschedulable`, (p) =>
            conditionsOf(p).some((c) => c['type'] === 'PodScheduled' && c['status'] === 'False'),
          );
          assert.equal(field(seen, 'spec', 'nodeName'), undefined);
          return String(conditionsOf(seen).find((c) => c['type'] === 'PodScheduled')?.['message']);
        };
        assert.match(
          await why('unbound'),
          /^0\/\d+ nodes are available: pod has unbound immediate PersistentVolumeClaims\./,
        );
        assert.match(
          await why('missing'),
          /^0\/\d+ nodes are available: persistentvolumeclaim "nowhere" not found\./,
        );
      },
    },
  ],
};
