/**
 * What the controllers of issue 17's later kinds do on a whole sim with kubelets: a DaemonSet rolling
 * update never leaves more nodes without an available daemon pod than `maxUnavailable` allows (and a
 * surge keeps every node served), a StatefulSet replaces its pods from the top with revisions, a
 * CronJob runs on the sim's clock and keeps its history limits, and a Service's Endpoints follow its
 * pods. The invariants are checked on every write (the store's synchronous watch), not by polling.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startTestSim, waitFor, type TestSim } from '../support.js';
import { R, type KObject } from '../../src/types.js';

const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const HASH = 'controller-revision-hash';

const isReady = (pod: KObject) =>
  !pod.metadata.deletionTimestamp &&
  ((pod.status?.['conditions'] ?? []) as { type: string; status: string }[]).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );

/** Watches the DaemonSet's pods on every write: the fewest nodes served and the most pods on one. */
function watchDaemonPods(sim: TestSim, app: string) {
  const pods = new Map<string, KObject>(
    sim.store
      .list(R.pods, { namespace: 'kube-system', labelSelector: `app=${app}` })
      .map((p) => [p.metadata.name ?? '', p]),
  );
  const seen = { fewestServed: Infinity, mostOnANode: 0 };
  const stop = sim.store.watch(R.pods, (e) => {
    if (e.object.metadata.labels?.['app'] !== app) return;
    if (e.type === 'DELETED') pods.delete(e.object.metadata.name ?? '');
    else pods.set(e.object.metadata.name ?? '', e.object);
    const served = new Set<string>();
    const perNode = new Map<string, number>();
    for (const pod of pods.values()) {
      const node = (pod.spec?.['nodeName'] as string | undefined) ?? '';
      if (isReady(pod)) served.add(node);
      // Not yet bound: on no node so far.
      if (node && !pod.metadata.deletionTimestamp) perNode.set(node, (perNode.get(node) ?? 0) + 1);
    }
    seen.fewestServed = Math.min(seen.fewestServed, served.size);
    seen.mostOnANode = Math.max(seen.mostOnANode, ...perNode.values());
  });
  return { seen, stop };
}

describe('rollouts, cron jobs and services on the sim', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  const daemonSet = (name: string) =>
    sim.apps.readNamespacedDaemonSet({ name, namespace: 'kube-system' });
  const rolledOut = async (name: string, generation: number, image: string) =>
    waitFor(`${name} rolled out at generation ${generation}`, async () => {
      const ds = await daemonSet(name);
      const s = ds.status;
      const pods = (
        await sim.core.listNamespacedPod({ namespace: 'kube-system', labelSelector: `app=${name}` })
      ).items;
      const done =
        s?.observedGeneration === generation &&
        s.updatedNumberScheduled === s.desiredNumberScheduled &&
        s.numberAvailable === s.desiredNumberScheduled &&
        pods.length === s.desiredNumberScheduled &&
        pods.every((p) => p.spec?.containers[0]?.image === image);
      return done ? ds : undefined;
    });

  it('a DaemonSet rolling update keeps all but maxUnavailable nodes served, and undo brings back revision 1 as 3', async () => {
    const image = (await daemonSet('node-agent')).spec?.template.spec?.containers[0]?.image ?? '';
    const before = await rolledOut('node-agent', 1, image);
    const desired = before.status?.desiredNumberScheduled ?? 0;
    assert.ok(desired >= 4, `a daemon pod per node (${desired})`);
    const watch = watchDaemonPods(sim, 'node-agent');
    await sim.apps.patchNamespacedDaemonSet(
      {
        name: 'node-agent',
        namespace: 'kube-system',
        body: {
          spec: {
            updateStrategy: { rollingUpdate: { maxUnavailable: 2 } },
            template: { spec: { containers: [{ name: 'node-agent', image: 'agent:2' }] } },
          },
        },
      },
      strategic,
    );
    await rolledOut('node-agent', 2, 'agent:2');
    watch.stop();
    assert.equal(watch.seen.fewestServed, desired - 2, 'two nodes at a time, never more');
    assert.equal(watch.seen.mostOnANode, 1, 'no surge: one pod per node');

    const revisions = await sim.apps.listNamespacedControllerRevision({
      namespace: 'kube-system',
      labelSelector: 'app=node-agent',
    });
    assert.deepEqual(
      revisions.items.map((r) => r.revision).sort(),
      [1, 2],
      'a revision per template',
    );
    const first = revisions.items.find((r) => r.revision === 1);
    await sim.apps.patchNamespacedDaemonSet(
      { name: 'node-agent', namespace: 'kube-system', body: first?.data },
      strategic,
    );
    await rolledOut('node-agent', 3, image);
    const after = await sim.apps.readNamespacedControllerRevision({
      name: first?.metadata?.name ?? '',
      namespace: 'kube-system',
    });
    assert.equal(after.revision, 3);
  });

  it('a DaemonSet with maxSurge starts the new pod beside the old one: no node goes unserved', async () => {
    const desired = (await daemonSet('node-agent')).status?.desiredNumberScheduled ?? 0;
    const watch = watchDaemonPods(sim, 'node-agent');
    await sim.apps.patchNamespacedDaemonSet(
      {
        name: 'node-agent',
        namespace: 'kube-system',
        body: {
          spec: {
            updateStrategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
            template: { spec: { containers: [{ name: 'node-agent', image: 'agent:3' }] } },
          },
        },
      },
      strategic,
    );
    await rolledOut('node-agent', 4, 'agent:3');
    watch.stop();
    assert.equal(watch.seen.fewestServed, desired, 'every node keeps an available pod');
    assert.equal(watch.seen.mostOnANode, 2, 'old and new side by side');
  });

  it('a StatefulSet update replaces its pods from the highest ordinal, at the new revision', async () => {
    await sim.apps.createNamespacedStatefulSet({
      namespace: 'data',
      body: {
        metadata: { name: 'db' },
        spec: {
          replicas: 3,
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: {
            metadata: { labels: { app: 'db' } },
            spec: { containers: [{ name: 'db', image: 'db:1' }] },
          },
        },
      },
    });
    const settled = (image: string) =>
      waitFor(`db at ${image}`, async () => {
        const sts = await sim.apps.readNamespacedStatefulSet({ name: 'db', namespace: 'data' });
        const pods = (
          await sim.core.listNamespacedPod({ namespace: 'data', labelSelector: 'app=db' })
        ).items;
        const s = sts.status;
        return s?.readyReplicas === 3 &&
          s.updatedReplicas === 3 &&
          s.currentRevision === s.updateRevision &&
          pods.length === 3 &&
          pods.every(
            (p) =>
              p.spec?.containers[0]?.image === image &&
              p.metadata?.labels?.[HASH] === s.updateRevision,
          )
          ? sts
          : undefined;
      });
    const first = await settled('db:1');
    const order: string[] = [];
    const stop = sim.store.watch(R.pods, (e) => {
      if (e.object.metadata.labels?.['app'] === 'db' && e.type === 'DELETED')
        order.push(e.object.metadata.name ?? '');
    });
    await sim.apps.patchNamespacedStatefulSet(
      {
        name: 'db',
        namespace: 'data',
        body: { spec: { template: { spec: { containers: [{ name: 'db', image: 'db:2' }] } } } },
      },
      strategic,
    );
    const second = await settled('db:2');
    stop();
    assert.deepEqual(order, ['db-2', 'db-1', 'db-0']);
    assert.notEqual(second.status?.updateRevision, first.status?.updateRevision);
    assert.match(second.status?.updateRevision ?? '', /^db-/);
  });

  it('a CronJob runs every sim minute, and keeps three successful Jobs', async () => {
    await sim.batch.createNamespacedCronJob({
      namespace: 'data',
      body: {
        metadata: { name: 'backup' },
        spec: {
          schedule: '* * * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: { restartPolicy: 'Never', containers: [{ name: 'b', image: 'backup:1' }] },
              },
            },
          },
        },
      },
    });
    const created = new Set<string>();
    const stop = sim.store.watch(R.jobs, (e) => {
      if (e.type === 'ADDED' && e.object.metadata.name?.startsWith('backup-'))
        created.add(e.object.metadata.name);
    });
    await waitFor('five runs', async () => (created.size >= 5 ? true : undefined), 30_000);
    stop();
    // Named after their scheduled minute: distinct, and none before the CronJob existed.
    const minutes = [...created].map((n) => Number(n.slice('backup-'.length)));
    assert.equal(new Set(minutes).size, minutes.length);
    assert.ok(minutes.every((m) => Number.isInteger(m) && m > 0));
    const kept = await waitFor('history trimmed to three', async () => {
      const jobs = (await sim.batch.listNamespacedJob({ namespace: 'data' })).items.filter(
        (j) => j.metadata?.name?.startsWith('backup-') && j.status?.succeeded === 1,
      );
      return jobs.length === 3 ? jobs : undefined;
    });
    assert.equal(kept.length, 3);
    const cj = await sim.batch.readNamespacedCronJob({ name: 'backup', namespace: 'data' });
    assert.ok(cj.status?.lastScheduleTime && cj.status.lastSuccessfulTime);
  });

  it("a Service's Endpoints and EndpointSlice follow its ready pods", async () => {
    await sim.core.createNamespacedService({
      namespace: 'shop',
      body: {
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    const pods = (await sim.core.listNamespacedPod({ namespace: 'shop', labelSelector: 'app=web' }))
      .items;
    const ips = pods.map((p) => `${p.status?.podIP ?? ''}:8080`).sort();
    await waitFor('the Endpoints list the web pods', async () => {
      const ep = await sim.core.readNamespacedEndpoints({ name: 'web', namespace: 'shop' });
      const got = (ep.subsets ?? [])
        .flatMap((s) => (s.addresses ?? []).map((a) => `${a.ip}:${s.ports?.[0]?.port ?? ''}`))
        .sort();
      return JSON.stringify(got) === JSON.stringify(ips) ? true : undefined;
    });
    await sim.apps.patchNamespacedDeployment(
      { name: 'web', namespace: 'shop', body: { spec: { replicas: 1 } } },
      strategic,
    );
    await waitFor('one endpoint left in the slice', async () => {
      const slices = sim.store.list(R.endpointslices, {
        namespace: 'shop',
        labelSelector: 'kubernetes.io/service-name=web',
      });
      const ready = slices.flatMap((s) =>
        ((s['endpoints'] ?? []) as { conditions: { ready: boolean } }[]).filter(
          (e) => e.conditions.ready,
        ),
      );
      return slices.length === 1 && ready.length === 1 ? true : undefined;
    });
  });
});
