import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { isReady, startTestSim, waitFor, type TestSim } from '../support.js';

const NS = 'shop';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('sim workloads through client-node', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  const podsOf = async (app: string): Promise<V1Pod[]> =>
    (await sim.core.listNamespacedPod({ namespace: NS, labelSelector: `app=${app}` })).items;

  it("starts a Deployment's pods and makes them Ready", async () => {
    await sim.apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: 'shop-cart' },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'shop-cart' } },
          template: {
            metadata: { labels: { app: 'shop-cart' } },
            spec: { containers: [{ name: 'cart', image: 'registry.example.com/cart:2' }] },
          },
        },
      },
    });
    const pods = await waitFor('3 ready cart pods', async () => {
      const items = await podsOf('shop-cart');
      return items.length === 3 && items.every(isReady) ? items : undefined;
    });
    assert.ok(pods.every((p) => p.status?.phase === 'Running' && p.spec?.nodeName));
    assert.ok(pods.every((p) => p.status?.podIP && p.status.containerStatuses?.[0]?.ready));
    const deploy = await waitFor('deployment status', async () => {
      const d = await sim.apps.readNamespacedDeployment({ name: 'shop-cart', namespace: NS });
      return d.status?.availableReplicas === 3 ? d : undefined;
    });
    assert.equal(deploy.status?.readyReplicas, 3);
    assert.equal(deploy.status?.observedGeneration, 1);
  });

  it("keeps a PDB's status in step with its pods", async () => {
    await sim.policy.createNamespacedPodDisruptionBudget({
      namespace: NS,
      body: {
        metadata: { name: 'shop-cart' },
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'shop-cart' } } },
      },
    });
    const pdb = await waitFor('pdb observed', async () => {
      const p = await sim.policy.readNamespacedPodDisruptionBudget({
        name: 'shop-cart',
        namespace: NS,
      });
      return p.status?.observedGeneration === 1 && p.status.currentHealthy === 3 ? p : undefined;
    });
    assert.equal(pdb.status?.desiredHealthy, 2);
    assert.equal(pdb.status?.disruptionsAllowed, 1);
    assert.equal(pdb.status?.expectedPods, 3);
    await sim.policy.patchNamespacedPodDisruptionBudget(
      { name: 'shop-cart', namespace: NS, body: { spec: { minAvailable: 3 } } },
      merge,
    );
    const tightened = await waitFor('pdb generation 2 observed', async () => {
      const p = await sim.policy.readNamespacedPodDisruptionBudget({
        name: 'shop-cart',
        namespace: NS,
      });
      return p.status?.observedGeneration === 2 ? p : undefined;
    });
    assert.equal(tightened.status?.disruptionsAllowed, 0);
    assert.equal(
      tightened.status?.conditions?.find((c) => c.type === 'DisruptionAllowed')?.status,
      'False',
    );
    await sim.policy.patchNamespacedPodDisruptionBudget(
      { name: 'shop-cart', namespace: NS, body: { spec: { minAvailable: 2 } } },
      merge,
    );
    await waitFor('pdb relaxed', async () => {
      const p = await sim.policy.readNamespacedPodDisruptionBudget({
        name: 'shop-cart',
        namespace: NS,
      });
      return p.status?.observedGeneration === 3 && p.status.disruptionsAllowed === 1;
    });
  });

  it('replaces an evicted pod on another node when its node is cordoned', async () => {
    const [victim] = await podsOf('shop-cart');
    const node = victim!.spec!.nodeName!;
    await sim.core.patchNode({ name: node, body: { spec: { unschedulable: true } } }, merge);
    await sim.core.createNamespacedPodEviction({
      name: victim!.metadata!.name!,
      namespace: NS,
      body: { metadata: { name: victim!.metadata!.name!, namespace: NS } },
    });
    await waitFor('victim removed after its grace period', async () => {
      const names = (await podsOf('shop-cart')).map((p) => p.metadata?.name);
      return !names.includes(victim!.metadata!.name);
    });
    const pods = await waitFor('3 ready pods again', async () => {
      const items = await podsOf('shop-cart');
      return items.length === 3 && items.every(isReady) ? items : undefined;
    });
    const replacement = pods.find(
      (p) => p.metadata!.creationTimestamp! > victim!.metadata!.creationTimestamp!,
    );
    assert.ok(replacement, 'a new pod was created');
    assert.notEqual(replacement.spec?.nodeName, node);
    const pdb = await sim.policy.readNamespacedPodDisruptionBudget({
      name: 'shop-cart',
      namespace: NS,
    });
    assert.equal(pdb.status?.currentHealthy, 3);
    await sim.core.patchNode({ name: node, body: { spec: { unschedulable: null } } }, merge);
  });

  it('refuses an eviction the PDB does not allow (429)', async () => {
    await sim.policy.patchNamespacedPodDisruptionBudget(
      { name: 'shop-cart', namespace: NS, body: { spec: { minAvailable: 3 } } },
      merge,
    );
    await waitFor('pdb at zero', async () => {
      const p = await sim.policy.readNamespacedPodDisruptionBudget({
        name: 'shop-cart',
        namespace: NS,
      });
      return p.status?.observedGeneration === 4 && p.status.disruptionsAllowed === 0;
    });
    const [pod] = await podsOf('shop-cart');
    await assert.rejects(
      sim.core.createNamespacedPodEviction({
        name: pod!.metadata!.name!,
        namespace: NS,
        body: { metadata: { name: pod!.metadata!.name!, namespace: NS } },
      }),
      (error: { code?: number }) => error.code === 429,
    );
  });

  it('deletes the ReplicaSets and pods of a deleted Deployment', async () => {
    await sim.apps.deleteNamespacedDeployment({ name: 'shop-cart', namespace: NS });
    await waitFor('cart pods gone', async () => (await podsOf('shop-cart')).length === 0);
    const sets = await sim.apps.listNamespacedReplicaSet({ namespace: NS });
    assert.ok(!sets.items.some((rs) => rs.metadata?.name?.startsWith('shop-cart-')));
  });
});
