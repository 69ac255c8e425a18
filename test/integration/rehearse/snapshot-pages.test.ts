/**
 * The rehearsal's copy of the cluster reads every page of kubemaint's own kinds. KubernetesObjectApi
 * drops a custom list's metadata, continue token included, so the snapshot once copied only the first
 * 500 MaintenanceRequests of a cluster that had more (a twin short of requests rehearses a different
 * campaign). Built-in kinds page through the typed clients' `_continue`; both are counted here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { R } from '@kubemaint/kubesim';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { kindKey, readClusterSnapshot } from '../../../src/adapters/kube/cluster-snapshot.js';
import { PAGE_SIZE } from '../../../src/adapters/kube/paginate.js';
import { encodeRequest, GROUP, VERSION } from '../../../src/adapters/kube/request-codec.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const NAMESPACE = 'kubemaint';
const REQUESTS = PAGE_SIZE + 37;
const NODES = PAGE_SIZE + 3;

describe('the rehearsal snapshot reads every page', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'fleet', nodes: NODES, podsPerNode: 1, scale: 1 });
    const at = sim.clock.now().toISOString();
    for (let i = 0; i < REQUESTS; i++) {
      const id = `r-${i.toString(16).padStart(6, '0')}`;
      sim.store.create(`maintenancerequests.${GROUP}`, {
        ...encodeRequest(
          {
            id,
            node: `node-${(i % NODES) + 1}`,
            action: 'reboot',
            state: 'proposed',
            reason: 'kernel',
            requestedBy: 'k8s:alice',
            origin: 'person',
            createdAt: at,
            updatedAt: at,
            approvals: [],
            history: [],
          },
          NAMESPACE,
        ),
      });
    }
  });
  after(() => sim?.stop());

  it(`copies all ${REQUESTS} requests and ${NODES} nodes, past the first page of ${PAGE_SIZE}`, async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const snapshot = await readClusterSnapshot(createKubeClient(kc), NAMESPACE);
    assert.equal(
      snapshot.objects.get(kindKey(`${GROUP}/${VERSION}`, 'MaintenanceRequest'))?.length,
      REQUESTS,
    );
    assert.equal(
      snapshot.objects.get(kindKey('v1', 'Node'))?.length,
      sim.store.list(R.nodes).length,
    );
    assert.ok(sim.store.list(R.nodes).length > PAGE_SIZE);
  });
});
