/**
 * One pass over the cluster (a tick) reads the requests once and reuses the read until it writes
 * one. The tick steps nodes side by side, so a read can start while another step's write is on its
 * way: such a read may not have the write, and must not outlive it. Shown with the write held at
 * the API server: a list made meanwhile is not what the pass answers with after the write landed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { controlCluster } from '../../../src/adapters/kube/control-cluster.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { R_REQUESTS } from '../../support/in-process-executor.js';
import { requestReader } from '../../support/requests.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

describe("a pass's read of the requests", () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  it('a list made while a write was on its way is not reused after the write', async () => {
    const now = sim.clock.now().toISOString();
    const request: MaintenanceRequest = {
      id: 'r-9a55a1',
      node: 'node-1',
      action: 'reboot',
      state: 'proposed',
      reason: 'kernel',
      requestedBy: 'k8s:alice',
      createdAt: now,
      updatedAt: now,
      approvals: [],
      history: [{ from: null, to: 'proposed', at: now, by: 'k8s:alice' }],
    };
    await requestReader(sim.kubeconfigPath).seed(request);
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const cluster = controlCluster(createKubeClient(kc), {
      namespace: 'kubemaint',
      now: () => sim.clock.now(),
    });
    await cluster.onePass!(async () => {
      const [before] = await cluster.listRequestNodes('active');
      assert.equal(before?.request?.id, request.id);
      // The write waits 400 ms at the server before it is applied.
      sim.admin.setFaults([{ resource: `${R_REQUESTS}/status`, verb: 'update', latencyMs: 400 }]);
      const written = cluster.writeRequest(
        { ...before.request, blockedReasons: ['outside the maintenance window'] },
        before.requestVersion,
      );
      await new Promise((r) => setTimeout(r, 100));
      // Another step's list, answered before the write is applied.
      const meanwhile = await cluster.listRequestNodes('active');
      assert.equal(meanwhile[0]?.request?.blockedReasons, undefined, 'made before the write');
      const version = await written;
      sim.admin.setFaults([]);
      const seen = await cluster.getNode('node-1');
      assert.deepEqual(seen?.request?.blockedReasons, ['outside the maintenance window']);
      assert.equal(seen?.requestVersion, version, 'the version a conditional write needs next');
    });
  });
});
