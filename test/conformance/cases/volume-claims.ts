/**
 * PersistentVolumeClaims on a cluster without volumes or a default StorageClass (both backends): a
 * claim is defaulted (Filesystem, Pending), protected by the `kubernetes.io/pvc-protection`
 * finalizer, stays Pending with the PV controller's `FailedBinding` Event, and a delete of a claim no
 * pod uses completes.
 */
import assert from 'node:assert/strict';
import { eventually } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { field, meta } from '../fixtures.js';

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
  ],
};
