import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { drainNode, type DrainHooks } from '../../../src/app/executor/drain.js';
import type { DrainSettings } from '../../../src/app/executor/settings.js';
import type { PodsPort } from '../../../src/app/ports.js';
import { DEFAULT_EXECUTOR_SETTINGS as DEFAULT_SETTINGS } from '../../../src/compose/executor-settings.js';
import type { DrainProgress } from '../../../src/core/request.js';
import { FakeCluster, testClock, type FakeClusterOptions } from '../../fakes/cluster.js';

const settings = (patch: Partial<DrainSettings> = {}): DrainSettings => ({
  ...DEFAULT_SETTINGS.drain,
  timeoutMs: 2_000,
  evictionRetryMs: 10,
  stallAfterMs: 200,
  deleteEmptyDirData: true,
  ...patch,
});

function cluster(options: FakeClusterOptions = {}): FakeCluster {
  const c = new FakeCluster(options);
  c.addNode('n1');
  for (let i = 0; i < 8; i++)
    c.addPod({ name: `web-${i}`, nodeName: 'n1', labels: { app: 'web' } });
  c.addPod({
    name: 'ds-1',
    nodeName: 'n1',
    owners: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', controller: true }],
  });
  c.addPod({ name: 'cache', nodeName: 'n1', hasEmptyDir: true });
  c.addPod({ name: 'done', nodeName: 'n1', phase: 'Succeeded', owners: [] });
  c.addPod({
    name: 'kubemaint-exec',
    namespace: 'kubemaint',
    nodeName: 'n1',
    labels: { 'app.kubernetes.io/managed-by': 'kubemaint', 'kubemaint.io/node': 'n1' },
    owners: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', controller: true }],
  });
  c.addPod({ name: 'elsewhere', nodeName: 'n2' });
  return c;
}

const run = (c: FakeCluster, s: DrainSettings, hooks: DrainHooks = {}) =>
  drainNode({ pods: c.podsPort(), clock: testClock }, { node: 'n1', settings: s }, hooks);

describe('drain', () => {
  it('evicts every evictable pod, leaves DaemonSet pods and itself, and waits until they are gone', async () => {
    const c = cluster();
    const progress: DrainProgress[] = [];
    const report = await run(c, settings(), { onProgress: (p) => void progress.push(p) });
    assert.equal(report.outcome, 'drained');
    assert.deepEqual(
      c
        .podsOn('n1')
        .map((p) => p.name)
        .sort(),
      ['ds-1', 'kubemaint-exec'],
    );
    assert.equal(report.evict.length, 10);
    assert.equal(report.progress.message, '10 of 10 pods evicted');
    assert.ok(report.skipped.some((s) => s.pod === 'kubemaint/kubemaint-exec'));
    assert.ok(
      report.warnings.some((w) => w.startsWith('ignoring DaemonSet-managed Pods: default/ds-1')),
    );
    assert.ok(progress.length > 2, 'progress reported along the way');
    assert.equal(c.pods.has('default/elsewhere'), true);
  });

  it('evicts nothing when the filters report an error', async () => {
    const c = cluster();
    c.addPod({ name: 'bare', nodeName: 'n1', owners: [] });
    const report = await run(c, settings());
    assert.equal(report.outcome, 'blocked');
    assert.match(
      report.errors[0] ?? '',
      /cannot delete Pods that declare no controller.*default\/bare/,
    );
    assert.equal(c.log.filter((l) => l.startsWith('evict')).length, 0);
  });

  it('retries PDB refusals until the budget allows, and says what it waits on', async () => {
    let allowed = 0;
    const c = cluster({
      refuse: (pod) =>
        pod.name === 'web-0' && allowed++ < 3
          ? 'The disruption budget web-pdb needs 2 healthy pods and has 2 currently'
          : undefined,
    });
    const progress: DrainProgress[] = [];
    const report = await run(c, settings(), { onProgress: (p) => void progress.push(p) });
    assert.equal(report.outcome, 'drained');
    assert.equal(c.log.filter((l) => l === 'refused default/web-0').length, 3);
    assert.ok(
      progress.some((p) =>
        p.message.includes('waiting on default/web-0 — PDB web-pdb allows 0 disruptions'),
      ),
    );
  });

  it('ends blocked at the timeout, naming the pods in the way', async () => {
    const c = cluster({
      refuse: (pod) =>
        pod.name === 'web-3'
          ? 'The disruption budget web-pdb needs 8 healthy pods and has 8 currently'
          : undefined,
    });
    const report = await run(c, settings({ timeoutMs: 300, stallAfterMs: 10_000 }));
    assert.equal(report.outcome, 'blocked');
    assert.deepEqual(report.remaining, [
      { pod: 'default/web-3', reason: 'PDB web-pdb allows 0 disruptions (needs 8 healthy, has 8)' },
    ]);
    assert.match(report.message, /drain timeout/);
    assert.equal(report.progress.evicted, 9);
  });

  it('rides out an apiserver outage: an eviction without an answer is tried again, never counted', async () => {
    const c = cluster();
    const port = c.podsPort();
    // kube-apiserver restarting: every eviction call gets no answer until the fifth.
    let calls = 0;
    const restarting: PodsPort = {
      ...port,
      evictPod: async (pod, options) =>
        ++calls <= 5
          ? {
              outcome: 'unavailable',
              message: `evict pod ${pod.namespace}/${pod.name}: ECONNREFUSED`,
            }
          : port.evictPod(pod, options),
    };
    const progress: DrainProgress[] = [];
    const report = await drainNode(
      { pods: restarting, clock: testClock },
      { node: 'n1', settings: settings() },
      { onProgress: (p) => void progress.push(p) },
    );
    assert.equal(report.outcome, 'drained', report.message);
    assert.equal(report.progress.evicted, 10);
    assert.equal(c.log.filter((l) => l.startsWith('evict')).length, 10, 'each pod evicted once');
    const during = progress.find((p) => /API server unavailable/.test(p.message));
    assert.ok(during, 'the progress says what it waits on');
    assert.equal(during.evicted, 0, 'nothing counted while no eviction was answered');
  });

  it('ends blocked at the timeout when the apiserver stays away, the pods named with why', async () => {
    const c = cluster();
    const port = c.podsPort();
    const away: PodsPort = {
      ...port,
      evictPod: async (pod, options) =>
        pod.name === 'web-2'
          ? { outcome: 'unavailable', message: 'evict pod default/web-2: ECONNRESET' }
          : port.evictPod(pod, options),
    };
    const report = await drainNode(
      { pods: away, clock: testClock },
      { node: 'n1', settings: settings({ timeoutMs: 300, stallAfterMs: 10_000 }) },
    );
    assert.equal(report.outcome, 'blocked');
    assert.deepEqual(report.remaining, [
      {
        pod: 'default/web-2',
        reason: 'API server unavailable: evict pod default/web-2: ECONNRESET',
      },
    ]);
    assert.deepEqual(report.errors, [], 'no eviction failed: it was never answered');
    assert.equal(report.progress.evicted, 9);
    assert.ok(c.pods.has('default/web-2'));
  });

  it('watches again when the apiserver refused the watch (a restart), not only resyncs', async () => {
    const c = cluster();
    const port = c.podsPort();
    let watches = 0;
    const refusing: PodsPort = {
      ...port,
      watchPodsOnNode: async (node, handler, onEnd) => {
        if (++watches === 1) throw new Error('watch pods: ECONNREFUSED');
        return port.watchPodsOnNode(node, handler, onEnd);
      },
    };
    const report = await drainNode(
      { pods: refusing, clock: testClock },
      // Longer than the first resync (2 s), which is what learns the pods are gone meanwhile.
      { node: 'n1', settings: settings({ timeoutMs: 10_000 }) },
    );
    assert.equal(report.outcome, 'drained');
    assert.ok(watches >= 2, `watched ${watches} times`);
  });

  it('follows a skip decision while stalled', async () => {
    const c = cluster({
      refuse: (pod) =>
        pod.name === 'web-1'
          ? 'The disruption budget x needs 1 healthy pods and has 1 currently'
          : undefined,
    });
    const report = await run(c, settings({ timeoutMs: 5_000, stallAfterMs: 50 }), {
      decision: async () => 'skip',
    });
    assert.equal(report.outcome, 'skipped');
    assert.equal(report.remaining[0]?.pod, 'default/web-1');
  });

  it('deletes the remaining pods without eviction on a force decision', async () => {
    const c = cluster({
      refuse: (pod) =>
        pod.name === 'web-1'
          ? 'The disruption budget x needs 1 healthy pods and has 1 currently'
          : undefined,
    });
    let asked = 0;
    const report = await run(c, settings({ timeoutMs: 5_000, stallAfterMs: 50 }), {
      decision: async () => (asked++ > 0 ? 'force' : 'wait'),
    });
    assert.equal(report.outcome, 'drained');
    assert.ok(c.log.includes('delete default/web-1'));
    assert.ok(asked >= 2, 'a wait decision keeps waiting');
  });

  it('deletes instead of evicting with disable-eviction', async () => {
    const c = cluster({ refuse: () => 'never allowed' });
    const report = await run(c, settings({ disableEviction: true }));
    assert.equal(report.outcome, 'drained');
    assert.equal(c.log.filter((l) => l.startsWith('delete')).length, 10);
    assert.equal(c.log.filter((l) => l.startsWith('evict') || l.startsWith('refused')).length, 0);
  });

  it('stops waiting for pods deleted longer ago than skip-wait-for-delete-timeout', async () => {
    const c = cluster({ stuck: (pod) => pod.name === 'web-2' });
    const report = await run(c, settings({ skipWaitForDeleteTimeoutMs: 100, timeoutMs: 3_000 }));
    assert.equal(report.outcome, 'drained');
    assert.equal(c.pods.has('default/web-2'), true, 'still terminating, but no longer waited for');
  });

  it('drains only pods matching the pod selector', async () => {
    const c = cluster();
    const report = await run(c, settings({ podSelector: 'app=web' }));
    assert.equal(report.outcome, 'drained');
    assert.equal(report.evict.length, 8);
    assert.ok(c.pods.has('default/cache'));
  });

  it('reports what it would do on a dry run and touches nothing', async () => {
    const c = cluster();
    const report = await drainNode(
      { pods: c.podsPort(), clock: testClock },
      { node: 'n1', settings: settings(), dryRun: true },
    );
    assert.equal(report.outcome, 'dry-run');
    assert.equal(report.evict.length, 10);
    assert.equal(c.podsOn('n1').length, 12);
  });
});

describe('drain: evictions under one PodDisruptionBudget go one at a time', () => {
  /** The fake's pods port, its evictions slowed and counted at once, overall and under app=web's PDB. */
  function counted(c: FakeCluster, budgets: PodsPort['listDisruptionBudgets']) {
    const base = c.podsPort();
    const seen = { all: 0, web: 0, maxAll: 0, maxWeb: 0 };
    const port: PodsPort = {
      ...base,
      ...(budgets ? { listDisruptionBudgets: budgets } : {}),
      async evictPod(pod, options) {
        const web = pod.name.startsWith('web-');
        seen.all++;
        if (web) seen.web++;
        seen.maxAll = Math.max(seen.maxAll, seen.all);
        seen.maxWeb = Math.max(seen.maxWeb, seen.web);
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.all--;
        if (web) seen.web--;
        return base.evictPod(pod, options);
      },
    };
    return { port, seen };
  }
  const budgets = async () => [
    { namespace: 'default', name: 'web', selector: { matchLabels: { app: 'web' } } },
    // Another namespace's PDB with the same selector guards none of these pods.
    { namespace: 'shop', name: 'all', selector: {} },
  ];
  const drain = (port: PodsPort, hooks: DrainHooks = {}) =>
    drainNode({ pods: port, clock: testClock }, { node: 'n1', settings: settings() }, hooks);

  it("sends app=web's eight one after another, beside the others", async () => {
    const c = cluster();
    const { port, seen } = counted(c, budgets);
    const report = await drain(port);
    assert.equal(report.outcome, 'drained');
    assert.equal(seen.maxWeb, 1, 'two evictions under one PDB at once');
    assert.ok(seen.maxAll >= 2, `the unguarded pods went beside them (at most ${seen.maxAll})`);
  });

  it('without the PDBs (a read refused), sends every eviction at once and says why', async () => {
    const c = cluster();
    const warned: string[] = [];
    const { port, seen } = counted(c, () =>
      Promise.reject(new Error('poddisruptionbudgets is forbidden')),
    );
    const report = await drain(port, {
      log: { warn: (_fields: unknown, message: string) => void warned.push(message) } as never,
    });
    assert.equal(report.outcome, 'drained');
    assert.ok(seen.maxWeb > 1);
    assert.match(warned.join('\n'), /PodDisruptionBudgets not read: evicting every pod at once/);
  });
});
