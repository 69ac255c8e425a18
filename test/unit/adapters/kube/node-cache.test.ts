/**
 * The node cache keeps each Node trimmed (ADR 0059): what a NodeView is made of and nothing else, so
 * a node read from the cache is the node a list would have given, at a fraction of the memory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { toNodeView } from '../../../../src/adapters/kube/control-cluster.js';
import { trimNode } from '../../../../src/adapters/kube/node-cache.js';

const full: V1Node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'node-1',
    uid: 'u-1',
    resourceVersion: '42',
    labels: { 'kubemaint.io/state': 'running', 'kubernetes.io/hostname': 'node-1' },
    annotations: { 'kubemaint.io/last-maintenance': '2026-12-01T00:00:00Z' },
    managedFields: [{ manager: 'kubelet', operation: 'Update' }],
  },
  spec: {
    unschedulable: true,
    podCIDR: '10.0.1.0/24',
    taints: [{ key: 'kubemaint.io/waiting', effect: 'NoSchedule', value: 'x' }],
  },
  status: {
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    capacity: { cpu: '4' },
    images: [{ names: ['registry/app:1'], sizeBytes: 123 }],
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        lastHeartbeatTime: new Date('2026-12-03T09:00:00Z'),
        lastTransitionTime: new Date('2026-12-02T09:00:00Z'),
      },
      { type: 'RebootRequired', status: 'False' },
    ],
    nodeInfo: {
      bootID: 'b-1',
      kubeletVersion: 'v1.34.4',
      osImage: 'Ubuntu 24.04',
      architecture: 'amd64',
      containerRuntimeVersion: 'containerd://2.0',
      kernelVersion: '6.8.0',
      kubeProxyVersion: 'v1.34.4',
      machineID: 'm',
      operatingSystem: 'linux',
      systemUUID: 's',
    },
  },
};

describe('node cache: trimmed nodes', () => {
  it('a trimmed node makes the same view as the whole one', () => {
    assert.deepEqual(toNodeView(trimNode(full)), toNodeView(full));
  });

  it('keeps neither images, addresses, capacity nor managed fields', () => {
    const trimmed = JSON.stringify(trimNode(full));
    for (const gone of ['images', 'addresses', 'capacity', 'managedFields', 'lastHeartbeatTime'])
      assert.ok(!trimmed.includes(gone), `${gone} in ${trimmed}`);
  });

  it('a node without status or spec still makes its view', () => {
    const bare: V1Node = { metadata: { name: 'bare' } };
    assert.deepEqual(toNodeView(trimNode(bare)), toNodeView(bare));
  });
});
