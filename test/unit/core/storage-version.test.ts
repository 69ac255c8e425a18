import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storagePlan } from '../../../src/core/storage-version.js';

const crd = 'maintenancerequests.kubemaint.io';

describe('storagePlan (ADR 0051)', () => {
  it('is done when only the wanted version is stored', () => {
    assert.deepEqual(
      storagePlan({ crd, storage: 'v1beta1', storedVersions: ['v1beta1'] }, 'v1beta1'),
      {
        kind: 'done',
        crd,
      },
    );
  });
  it('rewrites when an older version may still be stored, whatever the order', () => {
    for (const storedVersions of [
      ['v1alpha1', 'v1beta1'],
      ['v1beta1', 'v1alpha1'],
    ]) {
      assert.deepEqual(storagePlan({ crd, storage: 'v1beta1', storedVersions }, 'v1beta1'), {
        kind: 'rewrite',
        crd,
        from: ['v1alpha1'],
        to: 'v1beta1',
      });
    }
  });
  it('waits while the CRD stores another version, saying which manifests to apply', () => {
    const plan = storagePlan({ crd, storage: 'v1alpha1', storedVersions: ['v1alpha1'] }, 'v1beta1');
    assert.equal(plan.kind, 'wait');
    assert.match(
      plan.kind === 'wait' ? plan.why : '',
      /stores v1alpha1, not v1beta1: apply this kubemaint's CRDs \(infra\/k8s\/crds\.yaml/,
    );
    const none = storagePlan({ crd, storage: undefined, storedVersions: [] }, 'v1beta1');
    assert.match(none.kind === 'wait' ? none.why : '', /stores no version/);
  });
});
