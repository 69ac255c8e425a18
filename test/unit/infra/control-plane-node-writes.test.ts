/**
 * `kubemaint-control-plane-node-writes` judged with the sim's CEL: the control plane may put its
 * waiting taint on and off (and any PreferNoSchedule one) and uncordon; it may not cordon, nor add,
 * change or remove a NoSchedule or NoExecute taint. Others' writes are not its business.
 * test/real/kured-parity.test.ts asks kube-apiserver the same.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judge, policyIn } from '../../support/admission-policy.js';

const SERVE = 'system:serviceaccount:kubemaint:kubemaint-serve';
const KEY = 'kubemaint.io/waiting-for-maintenance';

const policy = policyIn('infra/k8s/admission-policy.yaml', 'kubemaint-control-plane-node-writes');

type Spec = { unschedulable?: boolean; taints?: { key: string; effect: string; value?: string }[] };
const person = { key: 'example.com/gpu', value: 'true', effect: 'NoSchedule' };
const write = (from: Spec, to: Spec, username = SERVE, groups: string[] = []) =>
  judge(policy.spec, {
    operation: 'UPDATE',
    group: '',
    resource: 'nodes',
    name: 'node-1',
    user: { username, groups },
    oldObject: { metadata: { name: 'node-1' }, spec: from },
    object: { metadata: { name: 'node-1' }, spec: to },
  });

describe('the control plane writes to nodes', () => {
  it('may add and remove its waiting taint, beside taints that stay', () => {
    const waiting = { key: KEY, effect: 'PreferNoSchedule' };
    assert.deepEqual(write({ taints: [person] }, { taints: [person, waiting] }), []);
    assert.deepEqual(write({ taints: [person, waiting] }, { taints: [person] }), []);
    assert.deepEqual(write({ taints: [waiting] }, {}), []);
    assert.deepEqual(write({}, { taints: [waiting] }, 'lambda', ['kubemaint:control-plane']), []);
  });
  it('may uncordon but not cordon', () => {
    assert.deepEqual(write({ unschedulable: true }, {}), []);
    assert.match(String(write({}, { unschedulable: true })), /never cordon one/);
  });
  it('may not add, change or remove NoSchedule or NoExecute taints', () => {
    const noExecute = { key: 'evict', effect: 'NoExecute' };
    assert.match(String(write({}, { taints: [noExecute] })), /only PreferNoSchedule taints/);
    assert.match(String(write({ taints: [person] }, {})), /only PreferNoSchedule taints/);
    assert.match(
      String(write({ taints: [person] }, { taints: [{ ...person, value: 'false' }] })),
      /only PreferNoSchedule taints/,
    );
  });
  it("leaves others' writes to their own RBAC and policies", () =>
    assert.equal(write({}, { unschedulable: true }, 'alice'), 'skipped'));
});
