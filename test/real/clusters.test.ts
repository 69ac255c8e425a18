/**
 * Issue 22 with one real cluster and one embedded one: a control plane over both (openClusters),
 * serve's own ServiceAccount on the real apiserver with exactly infra/k8s's RBAC. Both propose;
 * with the sim before the real cluster in `blockers.clusters.order`, an approval in the real
 * cluster waits with a reason naming the sim (the gate read the sim through the sim's connection);
 * once the sim's apiserver is stopped, the real cluster's request says the sim cannot be read (fail
 * closed), the real cluster is still worked, and a read across both names the sim unreachable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { recordDecision } from '../../src/app/control/commands.js';
import { readClusterFleets } from '../../src/app/control/cluster-fleets.js';
import { runTick } from '../../src/app/control/tick.js';
import { openControl, type ControlRuntime } from '../../src/compose.js';
import { openClusters, type ClusterSet } from '../../src/compose/clusters.js';
import { clusterConfigNamed } from '../../src/config/cluster-configs.js';
import { silentLogger } from '../../src/log.js';
import { applyAll, applyKubemaint, manifests } from '../support/apply-infra.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { configOf } from '../support/config.js';
import { INFRA_K8S, realCluster, type RealCluster } from '../support/real-cluster.js';
import { startTestSim, type TestSim } from '../support/sim.js';

const NODE = 'clusters-a';
const READ_NODES = 'clusters-read-nodes';
const alice = { kind: 'person', id: 'k8s:alice' } as const;

describe('one control plane over a real cluster and an embedded one', () => {
  let real: RealCluster;
  let sim: TestSim;
  let clusters: ClusterSet;
  let asAlice: ControlRuntime;

  before(async () => {
    real = await realCluster();
    const admin = new KubeConfig();
    admin.loadFromFile(real.kubeconfig);
    await applyAll(admin, manifests(INFRA_K8S));
    await applyAll(admin, [
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: NODE, labels: { 'kubemaint.io/reboot-required': 'true' } },
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'clusters-alice', namespace: 'kubemaint' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'kubemaint:person',
        },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
      },
      // A person reads the node of the request they decide about, as `kubemaint approve` does.
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: READ_NODES },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: READ_NODES },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: READ_NODES },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
      },
    ]);
    const aliceKubeconfig = real.userKubeconfig('alice');
    const probe = new KubeConfig();
    probe.loadFromFile(aliceKubeconfig);
    await applyKubemaint(admin, INFRA_K8S, probe);
    sim = await startTestSim({ scenario: 'demo' });
    const config = configOf({
      clusters: [
        { name: 'sim', kubeconfig: { path: sim.kubeconfigPath } },
        {
          name: 'real',
          kubeconfig: { path: real.serviceAccountKubeconfig('kubemaint', 'kubemaint-serve') },
        },
      ],
      kubelet: { enabled: false },
      approval: { approvers: { kubernetes: { users: ['alice'] } } },
      blockers: { clusters: { order: ['sim', 'real'] } },
    });
    clusters = await openClusters(config, { log: silentLogger() });
    asAlice = await openControl(clusterConfigNamed(config, 'real'), {
      log: silentLogger(),
      kubeconfigPath: aliceKubeconfig,
    });
  });
  after(async () => {
    await asAlice?.close();
    await clusters?.close();
    // Its apiserver was stopped by the test; closing it again only removes its folder.
    await sim?.close().catch(() => undefined);
    const admin = new KubeConfig();
    admin.loadFromFile(real.kubeconfig);
    await cleanKubemaint(admin, { nodes: [NODE] });
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    const ignore = () => undefined;
    await rbac.deleteClusterRoleBinding({ name: READ_NODES }).catch(ignore);
    await rbac.deleteClusterRole({ name: READ_NODES }).catch(ignore);
    await rbac
      .deleteNamespacedRoleBinding({ name: 'clusters-alice', namespace: 'kubemaint' })
      .catch(ignore);
  });

  const requestOf = async (name: string, node: string) =>
    (await clusters.get(name).deps.cluster.listRequests()).find((r) => r.node === node);

  it('proposes in both, and the real cluster waits for the sim before it', async () => {
    for (const runtime of clusters.runtimes) await runTick(runtime.deps);
    assert.equal((await requestOf('sim', 'node-2'))?.state, 'proposed');
    const proposed = await requestOf('real', NODE);
    assert.equal(proposed?.state, 'proposed');
    // As `kubemaint approve` records it: a decision in alice's name; serve applies it.
    assert.ok((await recordDecision(asAlice.deps, proposed.id, 'approve', alice)).ok);
    await runTick(clusters.get('real').deps);
    await runTick(clusters.get('real').deps);
    const waiting = await requestOf('real', NODE);
    assert.equal(waiting?.state, 'approved');
    assert.match(
      waiting.blockedReasons?.join('; ') ?? '',
      /cluster sim goes before real \(blockers\.clusters\.order\) and has unfinished maintenance/,
    );
  });

  it('fails closed once the sim cannot be read, and says which cluster is unreachable', async () => {
    await sim.stop();
    await runTick(clusters.get('real').deps);
    const waiting = await requestOf('real', NODE);
    assert.equal(waiting?.state, 'approved');
    assert.match(waiting.blockedReasons?.join('; ') ?? '', /cluster sim .* cannot be read/);
    const fleets = await readClusterFleets(
      clusters.runtimes.map((r) => ({ name: r.name, deps: r.deps })),
      { timeoutMs: 10_000 },
    );
    assert.deepEqual(
      fleets.map((f) => [f.cluster, 'unreachable' in f]),
      [
        ['sim', true],
        ['real', false],
      ],
    );
  });
});
