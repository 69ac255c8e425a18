import assert from 'node:assert/strict';
import { beforeEach, afterEach, describe, it } from 'node:test';
import { createManualClock, type ManualClock } from '../../src/clock.js';
import { DEFAULT_DELAYS, type ControllerContext } from '../../src/controllers/context.js';
import { startControllers } from '../../src/controllers/index.js';
import {
  findCondition,
  isPodReady,
  podSpec,
  podStatus,
  type Condition,
  type Taint,
} from '../../src/controllers/shapes.js';
import { createHost, type Host } from '../../src/host.js';
import { createJobsRunner } from '../../src/jobs-runner.js';
import { storeLaunch } from '../../src/jobs-runner-env.js';
import { startKubelets, type Kubelets } from '../../src/kubelets.js';
import { EXIT_CODE_ANNOTATION } from '../../src/kubelet-pods.js';
import { seedDemo } from '../../src/scenarios/demo.js';
import { createStore } from '../../src/store.js';
import { R, type KObject, type Store } from '../../src/types.js';
import { silentLogger } from '../../src/log.js';

const SECOND = 1_000;

describe('controllers and kubelets on a manual clock', () => {
  let clock: ManualClock;
  let store: Store;
  let kubelets: Kubelets;
  let host: Host;
  let stopControllers: () => void;

  beforeEach(() => {
    clock = createManualClock();
    store = createStore({ now: () => clock.now() });
    seedDemo(store, { version: 'v1.31.4', now: clock.now() });
    const ctx: ControllerContext = { store, clock, delays: DEFAULT_DELAYS, log: silentLogger() };
    const runner = createJobsRunner({
      images: {},
      clock,
      log: ctx.log,
      prepare: storeLaunch(store, () => ''),
      hostUrl: () => '',
    });
    kubelets = startKubelets(ctx, { version: 'v1.31.4', runner });
    stopControllers = startControllers(ctx);
    host = createHost({ clock, delays: DEFAULT_DELAYS, kubelets });
    clock.advance(10 * SECOND);
  });
  afterEach(() => {
    stopControllers();
    kubelets.stop();
    host.stop();
    clock.stop();
  });

  const pods = (filter: (p: KObject) => boolean = () => true) => store.list(R.pods).filter(filter);
  const node = (name: string) => store.get(R.nodes, undefined, name)!;
  const ready = (name: string) =>
    findCondition(node(name).status?.['conditions'] as Condition[], 'Ready')?.status;
  const taints = (name: string) =>
    ((node(name).spec?.['taints'] ?? []) as Taint[]).map((t) => `${t.key}:${t.effect}`).sort();
  const onNode = (name: string) => (p: KObject) => podSpec(p).nodeName === name;
  const isDaemon = (p: KObject) => p.metadata.ownerReferences?.[0]?.kind === 'DaemonSet';

  it('brings the demo up: every pod bound, Running and Ready; PDBs observed', () => {
    const all = pods();
    assert.equal(all.length, 12);
    assert.ok(all.every((p) => podStatus(p).phase === 'Running' && isPodReady(p)));
    assert.equal(pods(isDaemon).length, 6);
    assert.equal(
      new Set(pods(isDaemon).map((p) => podSpec(p).nodeName)).size,
      6,
      'one agent per node',
    );
    const web = store.get(R.pdbs, 'shop', 'web')!;
    assert.equal(web.status?.['disruptionsAllowed'], 1);
    assert.equal(web.status?.['observedGeneration'], 1);
    assert.ok(store.get(R.leases, 'kube-node-lease', 'node-1'), 'kubelets renew their Lease');
  });

  it('updates a budget when one of its pods is relabelled out of it', () => {
    const [pod] = pods((p) => p.metadata.labels?.['app'] === 'web');
    store.mutate(R.pods, 'shop', pod!.metadata.name!, (p) => {
      p.metadata.labels = { ...p.metadata.labels, app: 'debug' };
    });
    clock.advance(1);
    assert.equal(store.get(R.pdbs, 'shop', 'web')!.status?.['currentHealthy'], 2);
    clock.advance(10 * SECOND);
    assert.equal(
      store.get(R.pdbs, 'shop', 'web')!.status?.['currentHealthy'],
      3,
      'the RS replaced it',
    );
  });

  it('reboots a node: NotReady at once, back with a new bootID after the downtime, pods restarted', () => {
    const boot = (node('node-3').status?.['nodeInfo'] as { bootID: string }).bootID;
    const action = host.reboot('node-3');
    assert.equal(host.reboot('node-3').duplicate, true, 'a second reboot joins the pending one');
    assert.equal(ready('node-3'), 'True', 'the caller returns before the reboot happens');
    clock.advance(DEFAULT_DELAYS.rebootIssueDelayMs);
    assert.equal(Date.parse(action.takesEffectAt), clock.now().getTime());
    clock.advance(SECOND);
    assert.equal(ready('node-3'), 'False');
    assert.deepEqual(taints('node-3'), [
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/not-ready:NoSchedule',
    ]);
    assert.ok(pods(onNode('node-3')).every((p) => !isPodReady(p)));
    clock.advance(DEFAULT_DELAYS.rebootDowntimeMs);
    clock.advance(5 * SECOND);
    assert.equal(ready('node-3'), 'True');
    assert.deepEqual(taints('node-3'), []);
    assert.notEqual((node('node-3').status?.['nodeInfo'] as { bootID: string }).bootID, boot);
    const mine = pods(onNode('node-3'));
    assert.ok(mine.length > 0);
    assert.ok(
      mine.every((p) => isPodReady(p) && podStatus(p).containerStatuses?.[0]?.restartCount === 1),
    );
    const events = store
      .list(R.events, { namespace: 'default' })
      .filter((e) => e['reason'] === 'Rebooted');
    assert.equal(events.length, 1);
    assert.match(String(events[0]?.['message']), /^Node node-3 has been rebooted, boot id: /);
  });

  it('comes back once from a reboot issued again while the node is down', () => {
    kubelets.get('node-1')!.reboot();
    clock.advance(30 * SECOND);
    kubelets.get('node-1')!.reboot();
    clock.advance(DEFAULT_DELAYS.rebootDowntimeMs - 10 * SECOND);
    assert.notEqual(ready('node-1'), 'True', 'the second reboot started the downtime over');
    clock.advance(20 * SECOND);
    assert.equal(ready('node-1'), 'True');
    const from = store.resourceVersion();
    clock.advance(100 * SECOND);
    const beats = store
      .audit()
      .filter(
        (e) => e.rv > Number(from) && e.actor === 'kubelet/node-1' && e.resource === R.leases,
      );
    assert.ok(
      beats.length >= 9 && beats.length <= 11,
      `one heartbeat loop, got ${beats.length} renewals in 100 s`,
    );
  });

  it('upgrades a kubelet: new version, containers restarted, node stays Ready through a short restart', () => {
    host.upgrade('node-4', 'v1.31.4');
    clock.advance(
      DEFAULT_DELAYS.rebootIssueDelayMs + DEFAULT_DELAYS.upgradeDowntimeMs + 5 * SECOND,
    );
    assert.equal(
      (node('node-4').status?.['nodeInfo'] as { kubeletVersion: string }).kubeletVersion,
      'v1.31.4',
    );
    assert.equal(ready('node-4'), 'True');
    assert.ok(
      pods(onNode('node-4')).every((p) => podStatus(p).containerStatuses?.[0]?.restartCount === 1),
    );
  });

  it('marks a silent node Unknown after the grace period and evicts after 300 s of toleration', () => {
    const victims = pods(onNode('node-6')).filter((p) => !isDaemon(p));
    kubelets.get('node-6')!.stopKubelet();
    clock.advance(
      DEFAULT_DELAYS.nodeMonitorGraceMs +
        DEFAULT_DELAYS.heartbeatMs +
        DEFAULT_DELAYS.nodeMonitorPeriodMs,
    );
    assert.equal(ready('node-6'), 'Unknown');
    assert.deepEqual(taints('node-6'), [
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/unreachable:NoSchedule',
    ]);
    assert.ok(
      pods(onNode('node-6')).every((p) => !isPodReady(p)),
      'MarkPodsNotReady',
    );
    clock.advance(250 * SECOND);
    assert.ok(
      pods(onNode('node-6')).every((p) => !p.metadata.deletionTimestamp),
      'still within the toleration',
    );
    clock.advance(60 * SECOND);
    const evicted = pods(onNode('node-6')).filter((p) => p.metadata.deletionTimestamp);
    assert.deepEqual(
      evicted.map((p) => p.metadata.name).sort(),
      victims.map((p) => p.metadata.name).sort(),
    );
    assert.ok(pods(onNode('node-6')).some(isDaemon), 'the DaemonSet pod stays');
  });

  it('runs a Job to failure by exit code with backoff, then to success', () => {
    const job = (name: string, exitCode: number, backoffLimit: number): KObject => ({
      metadata: { name, namespace: 'default' },
      spec: {
        backoffLimit,
        template: {
          metadata: { annotations: { [EXIT_CODE_ANNOTATION]: String(exitCode) } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    });
    store.create(R.jobs, job('fails', 4, 1));
    store.create(R.jobs, job('works', 0, 0));
    clock.advance(30 * SECOND);
    const works = store.get(R.jobs, 'default', 'works')!;
    assert.equal(
      findCondition(works.status?.['conditions'] as Condition[], 'Complete')?.status,
      'True',
    );
    clock.advance(60 * SECOND);
    const fails = store.get(R.jobs, 'default', 'fails')!;
    assert.equal(fails.status?.['failed'], 2);
    assert.equal(
      findCondition(fails.status?.['conditions'] as Condition[], 'Failed')?.reason,
      'BackoffLimitExceeded',
    );
    const failed = pods((p) => p.metadata.labels?.['job-name'] === 'fails');
    assert.equal(failed.length, 2);
    assert.ok(
      failed.every((p) => podStatus(p).containerStatuses?.[0]?.state.terminated?.exitCode === 4),
    );
  });

  it('orphans or deletes dependents as the delete says', () => {
    store.create(R.jobs, {
      metadata: { name: 'keep-pods', namespace: 'default' },
      spec: {
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    });
    clock.advance(2 * SECOND);
    store.delete(R.jobs, 'default', 'keep-pods'); // batch/v1 default: Orphan
    clock.advance(SECOND);
    const orphan = pods((p) => p.metadata.labels?.['job-name'] === 'keep-pods');
    assert.equal(orphan.length, 1);
    assert.equal(orphan[0]?.metadata.ownerReferences, undefined);
    store.delete(R.deployments, 'shop', 'api');
    clock.advance(40 * SECOND);
    assert.equal(pods((p) => p.metadata.labels?.['app'] === 'api').length, 0);
  });

  it('runs a StatefulSet in order with stable names', () => {
    store.create(R.statefulsets, {
      metadata: { name: 'db', namespace: 'data' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'postgres:17' }] },
        },
      },
    });
    clock.advance(SECOND);
    assert.deepEqual(
      pods((p) => p.metadata.labels?.['app'] === 'db').map((p) => p.metadata.name),
      ['db-0'],
    );
    clock.advance(30 * SECOND);
    assert.deepEqual(
      pods((p) => p.metadata.labels?.['app'] === 'db')
        .map((p) => p.metadata.name)
        .sort(),
      ['db-0', 'db-1', 'db-2'],
    );
    assert.equal(store.get(R.statefulsets, 'data', 'db')!.status?.['readyReplicas'], 3);
  });
});
