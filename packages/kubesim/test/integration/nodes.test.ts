import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { SIM_BIN_DIR } from '../../src/jobs-runner.js';
import { R, type KObject } from '../../src/types.js';
import { isReady, startTestSim, waitFor, type TestSim } from '../support.js';

const run = promisify(execFile);
const readyOf = (node: V1Node): string | undefined =>
  node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
const taintKeys = (node: V1Node): string[] =>
  (node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();

describe('sim nodes: reboots, kubelet upgrades, lost kubelets', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo', delays: { rebootDowntimeMs: 90_000 } });
    await waitFor('demo pods ready', async () => {
      const pods = (await sim.core.listPodForAllNamespaces()).items;
      return pods.length === 12 && pods.every(isReady);
    });
  });
  after(async () => sim.close());

  const podsOn = async (node: string): Promise<V1Pod[]> =>
    (await sim.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` })).items;

  it('reboots a node through kubemaint-sim-host: NotReady, then Ready with a new bootID and restarted pods', async () => {
    // node-2's kubelet has graceful shutdown off (the kubelet's default): nobody marks its pods, the
    // new boot restarts the same pods in place.
    await sim.admin.serveConfigz('node-2', {
      shutdownGracePeriod: '0s',
      shutdownGracePeriodCriticalPods: '0s',
    });
    const before = await sim.core.readNode({ name: 'node-2' });
    const bootBefore = before.status?.nodeInfo?.bootID;
    const podsBefore = await podsOn('node-2');
    assert.ok(podsBefore.length > 0);
    const { stdout } = await run(`${SIM_BIN_DIR}/kubemaint-sim-host`, ['reboot'], {
      env: { ...process.env, KUBEMAINT_SIM_HOST_URL: sim.hostUrl, NODE_NAME: 'node-2' },
    });
    assert.equal(JSON.parse(stdout).action, 'reboot');
    await waitFor(
      'node-2 NotReady',
      async () => readyOf(await sim.core.readNode({ name: 'node-2' })) !== 'True',
    );
    const down = await sim.core.readNode({ name: 'node-2' });
    assert.ok(
      taintKeys(down).includes('node.kubernetes.io/not-ready:NoExecute') ||
        taintKeys(down).includes('node.kubernetes.io/unreachable:NoExecute'),
    );
    const up = await waitFor('node-2 Ready again', async () => {
      const node = await sim.core.readNode({ name: 'node-2' });
      return readyOf(node) === 'True' && node.status?.nodeInfo?.bootID !== bootBefore
        ? node
        : undefined;
    });
    assert.ok(up.status?.nodeInfo?.bootID);
    const pods = await waitFor('pods restarted and ready', async () => {
      const items = await podsOn('node-2');
      return items.length === podsBefore.length && items.every(isReady) ? items : undefined;
    });
    const kinds = podsBefore.map((p) => p.metadata?.ownerReferences?.[0]?.kind);
    assert.ok(kinds.includes('DaemonSet') && kinds.includes('ReplicaSet'), kinds.join());
    for (const pod of pods) {
      assert.equal(pod.status?.containerStatuses?.[0]?.restartCount, 1, pod.metadata?.name);
    }
    assert.deepEqual(
      pods.map((p) => p.metadata?.uid).sort(),
      podsBefore.map((p) => p.metadata?.uid).sort(),
      'the same pods',
    );
    await waitFor(
      'taints removed',
      async () => taintKeys(await sim.core.readNode({ name: 'node-2' })).length === 0,
    );
    assert.deepEqual(
      sim.admin.hostLog().map((h) => `${h.node}:${h.action}`),
      ['node-2:reboot'],
    );
  });

  it('with graceful shutdown configured, a reboot fails every pod as upstream and their owners replace them', async () => {
    // The kubelet's config, as its /configz serves it (the VM's kubelet had 20s).
    await sim.admin.serveConfigz('node-3', {
      shutdownGracePeriod: '20s',
      shutdownGracePeriodCriticalPods: '0s',
    });
    const before = await podsOn('node-3');
    const kinds = before.map((p) => p.metadata?.ownerReferences?.[0]?.kind).sort();
    assert.ok(kinds.includes('DaemonSet') && kinds.includes('ReplicaSet'), kinds.join());
    const uids = new Set(before.map((p) => p.metadata?.uid));
    // The DaemonSet controller deletes its failed pod at once: keep the last status each old pod had.
    const last = new Map<string, KObject>();
    const stopWatch = sim.store.watch(R.pods, (event) => {
      if (uids.has(event.object.metadata.uid))
        last.set(event.object.metadata.uid ?? '', event.object);
    });
    const bootBefore = (await sim.core.readNode({ name: 'node-3' })).status?.nodeInfo?.bootID;
    const answer = await fetch(`${sim.hostUrl}/_sim/nodes/node-3/reboot`, { method: 'POST' });
    assert.equal(answer.status, 202, await answer.text());
    try {
      await waitFor('node-3 back with a new boot', async () => {
        const node = await sim.core.readNode({ name: 'node-3' });
        return readyOf(node) === 'True' && node.status?.nodeInfo?.bootID !== bootBefore;
      });
      for (const old of before) {
        const status = last.get(old.metadata?.uid ?? '')?.status as V1Pod['status'];
        const name = old.metadata?.name;
        assert.equal(status?.phase, 'Failed', name);
        assert.equal(status?.reason, 'Terminated', name);
        assert.equal(status?.message, 'Pod was terminated in response to imminent node shutdown.');
        const disruption = status?.conditions?.find((c) => c.type === 'DisruptionTarget');
        assert.equal(disruption?.status, 'True', name);
        assert.equal(disruption?.reason, 'TerminationByKubelet', name);
      }
      // Each owner has as many ready pods as before, none of them an old one restarted.
      const owners = before.map((p) => p.metadata?.ownerReferences?.[0]?.uid);
      await waitFor('owners replaced the failed pods', async () => {
        const all = (await sim.core.listPodForAllNamespaces()).items;
        return owners.every((owner) => {
          const mine = (p: V1Pod) => p.metadata?.ownerReferences?.[0]?.uid === owner;
          const want = owners.filter((o) => o === owner).length;
          const fresh = all.filter((p) => mine(p) && isReady(p) && !uids.has(p.metadata?.uid));
          return fresh.length >= want;
        });
      });
      const daemonPods = (await podsOn('node-3')).filter(
        (p) => p.metadata?.ownerReferences?.[0]?.kind === 'DaemonSet',
      );
      assert.ok(daemonPods.length > 0);
      for (const pod of daemonPods) {
        assert.ok(!uids.has(pod.metadata?.uid), `${pod.metadata?.name} is a new pod`);
        assert.equal(pod.status?.containerStatuses?.[0]?.restartCount, 0);
      }
    } finally {
      stopWatch();
    }
  });

  it('upgrades a kubelet through the host endpoint and restarts its containers', async () => {
    const response = await fetch(`${sim.hostUrl}/_sim/nodes/node-4/upgrade?version=v1.31.4`, {
      method: 'POST',
    });
    assert.equal(response.status, 202);
    const node = await waitFor('node-4 on v1.31.4', async () => {
      const n = await sim.core.readNode({ name: 'node-4' });
      return n.status?.nodeInfo?.kubeletVersion === 'v1.31.4' ? n : undefined;
    });
    assert.equal(readyOf(node), 'True');
    const pods = await waitFor('restarted', async () => {
      const items = await podsOn('node-4');
      return items.every((p) => p.status?.containerStatuses?.[0]?.restartCount === 1)
        ? items
        : undefined;
    });
    assert.ok(pods.length > 0);
  });

  it('refuses a malformed version and an unknown node with a clear error', async () => {
    const bad = await fetch(`${sim.hostUrl}/_sim/nodes/node-4/upgrade?version=1.31`, {
      method: 'POST',
    });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /invalid kubelet version/);
    const missing = await fetch(`${sim.hostUrl}/_sim/nodes/nope/reboot`, { method: 'POST' });
    assert.equal(missing.status, 404);
  });

  it('taints a node whose kubelet stopped and evicts its pods after their toleration', async () => {
    const victims = (await podsOn('node-6')).filter(
      (p) => !p.metadata?.ownerReferences?.some((o) => o.kind === 'DaemonSet'),
    );
    assert.ok(victims.length > 0, 'node-6 runs a Deployment pod');
    sim.admin.stopKubelet('node-6');
    const lost = await waitFor('node-6 Unknown', async () => {
      const n = await sim.core.readNode({ name: 'node-6' });
      return readyOf(n) === 'Unknown' ? n : undefined;
    });
    assert.deepEqual(taintKeys(lost), [
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/unreachable:NoSchedule',
    ]);
    const lostAt = Date.now();
    // Evicted, but nobody on node-6 can finish the deletion: Terminating, as on a real cluster.
    await waitFor(
      'deployment pods on node-6 marked for deletion',
      async () => {
        const pods = await podsOn('node-6');
        return victims.every((v) =>
          pods.some((p) => p.metadata?.name === v.metadata?.name && p.metadata?.deletionTimestamp),
        );
      },
      20_000,
    );
    // 300 s of toleration at scale 100 is 3 s of wall time: eviction must not be immediate.
    assert.ok(Date.now() - lostAt > 1_500, 'pods waited for their tolerationSeconds');
    const daemon = (await podsOn('node-6')).filter((p) =>
      p.metadata?.ownerReferences?.some((o) => o.kind === 'DaemonSet'),
    );
    assert.equal(daemon.length, 1, 'DaemonSet pods tolerate unreachable forever');
    assert.equal(daemon[0]?.metadata?.deletionTimestamp, undefined);
    const apps = victims.map((v) => v.metadata?.labels?.['app']);
    await waitFor('replacements ready elsewhere', async () => {
      const all = (await sim.core.listPodForAllNamespaces()).items;
      return apps.every((app) =>
        all.some(
          (p) =>
            p.metadata?.labels?.['app'] === app &&
            p.spec?.nodeName !== 'node-6' &&
            isReady(p) &&
            !victims.some((v) => v.metadata?.name === p.metadata?.name),
        ),
      );
    });
    sim.admin.startKubelet('node-6');
    await waitFor('node-6 Ready, taints gone', async () => {
      const n = await sim.core.readNode({ name: 'node-6' });
      return readyOf(n) === 'True' && taintKeys(n).length === 0;
    });
    await waitFor('terminating pods finished once the kubelet is back', async () => {
      const names = (await podsOn('node-6')).map((p) => p.metadata?.name);
      return victims.every((v) => !names.includes(v.metadata?.name));
    });
  });
});
