/**
 * An attached fleet reads its pods through one watch (ADR 0058): five nodes attached to the sim's API
 * server make exactly one list and one watch of `/api/v1/pods` (bound pods, every namespace, as the
 * kubeconfig's own identity, not a node's), counted on the server itself; a pod bound to one of them
 * still reaches that node's kubelet, which writes its status as the node. A kubeconfig that may
 * impersonate the nodes but not read pods is refused before any Node is registered.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { attachSim, type AttachedSim } from '../../src/attach/index.js';
import { writeKubeconfig } from '../../src/api/index.js';
import { R } from '../../src/types.js';
import { startSimApi, waitFor, type SimApi } from '../support.js';

const NODES = 5;

interface PodRead {
  watch: boolean;
  fieldSelector: string | null;
  as: string | undefined;
}

describe('an attached fleet shares one pod watch', () => {
  let sim: SimApi;
  let attached: AttachedSim | undefined;
  const podReads: PodRead[] = [];
  const countPodReads = (req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'https://sim.invalid');
    // Every read of pods: the cluster-wide path and any namespace's.
    if (req.method !== 'GET' || !/^\/api\/v1\/(namespaces\/[^/]+\/)?pods$/.test(url.pathname))
      return;
    const as = req.headers['impersonate-user'];
    podReads.push({
      watch: url.searchParams.get('watch') === 'true',
      fieldSelector: url.searchParams.get('fieldSelector'),
      as: Array.isArray(as) ? as[0] : as,
    });
  };

  before(async () => {
    sim = await startSimApi();
    // The API alone has no namespace controller: the one the nodes' Leases live in, as a cluster has.
    sim.store.create(
      R.namespaces,
      { metadata: { name: 'kube-node-lease' } },
      { actor: 'test/setup' },
    );
    sim.api.server.on('request', countPodReads);
    attached = await attachSim({ kubeconfig: sim.kubeconfigPath, nodes: NODES, prefix: 'one-' });
  });
  after(async () => {
    await attached?.stop();
    await sim?.close();
  });

  it(`makes one list and one watch of bound pods for ${NODES} nodes, as the kubeconfig's identity`, () => {
    assert.equal(attached?.nodes.length, NODES);
    assert.deepEqual(podReads, [
      { watch: false, fieldSelector: 'spec.nodeName!=', as: undefined },
      { watch: true, fieldSelector: 'spec.nodeName!=', as: undefined },
    ]);
  });

  it("hands a pod bound to one node to that node's kubelet, which writes its status as the node", async () => {
    sim.store.create(
      R.pods,
      {
        metadata: { name: 'bound', namespace: 'default' },
        spec: { nodeName: 'one-3', containers: [{ name: 'c', image: 'sim.test/none:1' }] },
      },
      { actor: 'test/setup' },
    );
    await waitFor(
      'bound Running',
      () => sim.store.get(R.pods, 'default', 'bound')?.status?.['phase'] === 'Running',
    );
    const writers = sim.store
      .audit()
      .filter((e) => e.name === 'bound' && e.subresource === 'status')
      .map((e) => e.actor);
    assert.ok(writers.length > 0);
    assert.ok(
      writers.every((actor) => actor.endsWith(' as system:node:one-3')),
      writers.join(),
    );
    assert.equal(podReads.length, 2, 'still the one list and the one watch');
  });

  it('refuses a kubeconfig that may impersonate the nodes but not read pods, before registering any', async () => {
    const rbac = 'rbac.authorization.k8s.io';
    const setup = { actor: 'test/setup' };
    sim.store.create(
      `clusterroles.${rbac}`,
      {
        metadata: { name: 'impersonate-only' },
        rules: [
          {
            apiGroups: [''],
            resources: ['users'],
            verbs: ['impersonate'],
            resourceNames: ['system:node:no-pods-0'],
          },
          {
            apiGroups: [''],
            resources: ['groups'],
            verbs: ['impersonate'],
            resourceNames: ['system:nodes'],
          },
        ],
      },
      setup,
    );
    sim.store.create(
      `clusterrolebindings.${rbac}`,
      {
        metadata: { name: 'impersonate-only' },
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'impersonate-only' },
        subjects: [{ kind: 'ServiceAccount', name: 'fleet', namespace: 'default' }],
      },
      setup,
    );
    sim.store.create(
      R.serviceaccounts,
      { metadata: { name: 'fleet', namespace: 'default' } },
      setup,
    );
    const kubeconfig = join(sim.dir, 'fleet.kubeconfig');
    writeKubeconfig(kubeconfig, {
      url: sim.api.url,
      caPem: sim.api.caPem,
      token: sim.api.serviceAccountToken('default', 'fleet'),
    });
    await assert.rejects(
      attachSim({ kubeconfig, nodes: 1, prefix: 'no-pods-', kubeletVersion: 'v1.31.2' }),
      (error: unknown) =>
        (error as { code?: string }).code === 'config_invalid' &&
        /cannot list and watch pods in all namespaces/.test((error as Error).message),
    );
    assert.equal(sim.store.get(R.nodes, undefined, 'no-pods-0'), undefined, 'no Node left behind');
  });
});
