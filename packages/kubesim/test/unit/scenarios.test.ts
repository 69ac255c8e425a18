import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GRACE_MARKS, REBOOT_MARKS, SCENARIO_KUBELET_SHUTDOWN } from '../../src/scenarios/marks.js';
import { isPodReady, podSpec } from '../../src/controllers/shapes.js';
import { POOL_LABEL } from '../../src/scenarios/builders.js';
import { SCENARIOS, isScenarioName } from '../../src/scenarios/index.js';
import { nodesProblem } from '../../src/names.js';
import { createStore } from '../../src/store.js';
import { R, type Store } from '../../src/types.js';

const NOW = new Date('2026-01-05T09:00:00Z');
const seeded = (
  name: keyof typeof SCENARIOS,
  extra: { nodes?: number; podsPerNode?: number } = {},
): Store => {
  const store = createStore({ now: () => NOW });
  SCENARIOS[name].seed(store, { version: 'v1.31.4', now: NOW, ...extra });
  return store;
};
const kubeletVersion = (store: Store, node: string) =>
  (store.get(R.nodes, undefined, node)!.status?.['nodeInfo'] as { kubeletVersion: string })
    .kubeletVersion;

describe('demo scenario', () => {
  const store = seeded('demo');
  const nodes = store.list(R.nodes);

  it('has six nodes, two marked as needing a reboot with the agent annotations', () => {
    assert.equal(nodes.length, 6);
    const marked = nodes.filter((n) => n.metadata.labels?.[REBOOT_MARKS.label] === 'true');
    assert.deepEqual(
      marked.map((n) => n.metadata.name),
      ['node-2', 'node-5'],
    );
    assert.ok(marked.every((n) => n.metadata.annotations?.[REBOOT_MARKS.since]));
  });

  it("carries on every node the agent's report of its kubelet's graceful shutdown (configz)", () => {
    for (const n of nodes) {
      const a = n.metadata.annotations ?? {};
      assert.deepEqual(
        [a[GRACE_MARKS.period], a[GRACE_MARKS.critical], a[GRACE_MARKS.source]],
        [
          SCENARIO_KUBELET_SHUTDOWN.shutdownGracePeriod,
          SCENARIO_KUBELET_SHUTDOWN.shutdownGracePeriodCriticalPods,
          'configz',
        ],
        n.metadata.name,
      );
    }
  });

  it('runs one kubelet a minor behind the apiserver', () => {
    const behind = nodes.filter((n) => kubeletVersion(store, n.metadata.name!) !== 'v1.31.4');
    assert.deepEqual(
      behind.map((n) => [n.metadata.name, kubeletVersion(store, n.metadata.name!)]),
      [['node-4', 'v1.30.9']],
    );
  });

  it('has PDB-guarded Deployments, a DaemonSet and an emptyDir workload', () => {
    assert.deepEqual(
      store
        .list(R.pdbs)
        .map((p) => p.metadata.name)
        .sort(),
      ['api', 'web'],
    );
    assert.equal(store.list(R.daemonsets).length, 1);
    const cache = store.get(R.deployments, 'data', 'cache')!;
    const volumes = (cache.spec?.['template'] as { spec: { volumes: { emptyDir?: object }[] } })
      .spec.volumes;
    assert.ok(volumes.some((v) => v.emptyDir));
  });

  it('seeds --nodes nodes, two thirds general, keeping its marks where the nodes exist', () => {
    const nine = seeded('demo', { nodes: 9 }).list(R.nodes);
    assert.equal(nine.length, 9);
    assert.deepEqual(
      nine.map((n) => n.metadata.labels?.[POOL_LABEL]),
      [...Array<string>(6).fill('general'), 'batch', 'batch', 'batch'],
    );
    const marked = (list: typeof nine) =>
      list
        .filter((n) => n.metadata.labels?.[REBOOT_MARKS.label] === 'true')
        .map((n) => n.metadata.name);
    assert.deepEqual(marked(nine), ['node-2', 'node-5']);
    const three = seeded('demo', { nodes: 3 }).list(R.nodes);
    assert.deepEqual(
      three.map((n) => n.metadata.name),
      ['node-1', 'node-2', 'node-3'],
    );
    assert.deepEqual(marked(three), ['node-2']);
  });
});

describe('node counts (nodesProblem)', () => {
  it('takes 1 to 5000 nodes for demo and fleet and none for empty, saying why not', () => {
    assert.equal(nodesProblem('demo', 1), undefined);
    assert.equal(nodesProblem('fleet', 5000), undefined);
    assert.match(nodesProblem('demo', 0)!, /--nodes 0 is not a whole number from 1 to 5000/);
    assert.match(nodesProblem('fleet', 2.5)!, /not a whole number/);
    assert.match(nodesProblem('fleet', 5001)!, /from 1 to 5000/);
    assert.match(nodesProblem('empty', 3)!, /empty scenario seeds no nodes/);
  });
});

describe('fleet scenario', () => {
  it('seeds N nodes in pools with podsPerNode running pods each', () => {
    const store = seeded('fleet', { nodes: 9, podsPerNode: 12 });
    const nodes = store.list(R.nodes);
    assert.equal(nodes.length, 9);
    assert.deepEqual(
      new Set(nodes.map((n) => n.metadata.labels?.[POOL_LABEL])),
      new Set(['general', 'compute', 'batch']),
    );
    const pods = store.list(R.pods);
    assert.equal(pods.length, 9 * 12);
    assert.ok(pods.every((p) => isPodReady(p) && podSpec(p).nodeName));
    const perNode = new Map<string, number>();
    for (const pod of pods)
      perNode.set(podSpec(pod).nodeName!, (perNode.get(podSpec(pod).nodeName!) ?? 0) + 1);
    assert.deepEqual([...new Set(perNode.values())], [12]);
    assert.ok(nodes.some((n) => n.metadata.labels?.[REBOOT_MARKS.label] === 'true'));
    const batch = nodes.filter((n) => n.metadata.labels?.[POOL_LABEL] === 'batch');
    assert.ok(batch.every((n) => kubeletVersion(store, n.metadata.name!) === 'v1.30.9'));
  });

  it('keeps ReplicaSet and PDB counts consistent with the seeded pods', () => {
    const store = seeded('fleet', { nodes: 4, podsPerNode: 6 });
    const total = store.list(R.replicasets).reduce((n, rs) => n + Number(rs.spec?.['replicas']), 0);
    assert.equal(total, 4 * 5);
    assert.equal(store.list(R.pdbs).length, store.list(R.deployments).length);
  });

  const bad: [string, { nodes?: number; podsPerNode?: number }, RegExp][] = [
    ['zero nodes', { nodes: 0 }, /whole number of nodes/],
    ['more pods than max-pods', { podsPerNode: 111 }, /pods per node must be 1\.\.110/],
  ];
  for (const [why, options, message] of bad) {
    it(`refuses ${why}`, () => assert.throws(() => seeded('fleet', options), message));
  }
});

describe('scenario names', () => {
  it('knows demo, fleet and empty, and nothing else', () => {
    assert.ok(isScenarioName('demo') && isScenarioName('fleet') && isScenarioName('empty'));
    assert.equal(isScenarioName('toString'), false);
  });
});
