/**
 * `kubemaint-node-status-maintenance-conditions-only` judged with the sim's CEL: kubemaint's accounts
 * may set and remove the KEP-5683 maintenance conditions on a node's status, and change nothing else
 * there (Ready, the bootID); the executor only on its own node. test/real/node-conditions.test.ts
 * asks kube-apiserver the same.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judge, policyIn } from '../../support/admission-policy.js';

const SERVE = 'system:serviceaccount:kubemaint:kubemaint-serve';
const EXECUTOR = 'system:serviceaccount:kubemaint:kubemaint-executor';
const NODE_NAME = 'authentication.kubernetes.io/node-name';

const policy = policyIn(
  'infra/k8s/admission-policy.yaml',
  'kubemaint-node-status-maintenance-conditions-only',
);

const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady' };
const drained = { type: 'Drained', status: 'True', reason: 'DrainCompleted' };
const planned = { type: 'MaintenancePlanned', status: 'True', reason: 'AdminRequested' };
const status = (conditions: object[], bootID = 'boot-a') => ({
  conditions,
  nodeInfo: { bootID, kubeletVersion: 'v1.34.4' },
  addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
});
type Status = ReturnType<typeof status>;
const write = (
  from: Status,
  to: Status,
  user: { username: string; groups?: string[]; extra?: Record<string, string[]> } = {
    username: SERVE,
  },
  name = 'node-1',
) =>
  judge(policy.spec, {
    operation: 'UPDATE',
    group: '',
    resource: 'nodes/status',
    name,
    user,
    oldObject: { metadata: { name }, status: from },
    object: { metadata: { name }, status: to },
  });

describe("kubemaint's writes to a node's status", () => {
  it('may set, change and remove its maintenance conditions beside the kubelet’s', () => {
    assert.deepEqual(write(status([ready]), status([ready, planned])), []);
    assert.deepEqual(write(status([ready, planned]), status([ready, drained])), []);
    assert.deepEqual(write(status([ready, drained]), status([ready])), []);
    const lambda = { username: 'lambda', groups: ['kubemaint:control-plane'] };
    assert.deepEqual(write(status([ready]), status([ready, planned]), lambda), []);
  });
  it('may not change, add or remove any other condition', () => {
    const notReady = { ...ready, status: 'False' };
    assert.match(String(write(status([ready]), status([notReady]))), /only its maintenance/);
    assert.match(String(write(status([ready]), status([]))), /only its maintenance/);
    const other = { type: 'KernelDeadlock', status: 'False' };
    assert.match(String(write(status([ready]), status([ready, other]))), /only its maintenance/);
  });
  it('may not change the bootID (the proof of a reboot) or the addresses', () => {
    assert.match(
      String(write(status([ready]), status([ready, planned], 'boot-forged'))),
      /may not change a node's addresses, capacity, nodeInfo/,
    );
    const moved = { ...status([ready]), addresses: [{ type: 'InternalIP', address: '10.9.9.9' }] };
    assert.match(String(write(status([ready]), moved)), /nodeInfo/);
  });
  it('lets the executor write only its own node', () => {
    const onNode1 = { username: EXECUTOR, extra: { [NODE_NAME]: ['node-1'] } };
    assert.deepEqual(write(status([ready]), status([ready, drained]), onNode1), []);
    assert.match(
      String(write(status([ready]), status([ready, drained]), onNode1, 'node-2')),
      /executor on node-1 may not write the status of node node-2/,
    );
  });
  it("leaves others' writes (the kubelet's) to their own RBAC and policies", () =>
    assert.equal(
      write(status([ready]), status([{ ...ready, status: 'False' }]), {
        username: 'system:node:n',
      }),
      'skipped',
    ));
});
