import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import { startSimApi, type SimApi } from '../support.js';
import { R } from '../../src/types.js';

interface Seen {
  type: string;
  name: string;
  rv: string;
}

/** Collects watch events until `until` holds (or 5 s pass), then aborts the watch. */
async function collect(
  sim: SimApi,
  path: string,
  query: Record<string, string | number | boolean>,
  until: (events: Seen[]) => boolean,
  act: () => Promise<unknown> | void = () => {},
): Promise<{ events: Seen[]; error: unknown }> {
  const events: Seen[] = [];
  let finish!: (error: unknown) => void;
  const done = new Promise<unknown>((resolve) => (finish = resolve));
  const controller = await new Watch(sim.kc).watch(
    path,
    query,
    (type, obj: { metadata?: { name?: string; resourceVersion?: string }; code?: number }) => {
      events.push({
        type,
        name: obj.metadata?.name ?? String(obj.code ?? ''),
        rv: obj.metadata?.resourceVersion ?? '',
      });
      if (until(events)) finish(undefined);
    },
    (error) => finish(error ?? 'closed'),
  );
  await act();
  const timer = setTimeout(() => finish('timeout'), 5000);
  const error = await done;
  clearTimeout(timer);
  controller.abort();
  return { events, error: error === undefined ? undefined : error };
}

describe('sim API over HTTPS: lists, selectors, watches', () => {
  let sim: SimApi;
  let core: CoreV1Api;
  before(async () => {
    sim = await startSimApi();
    core = sim.kc.makeApiClient(CoreV1Api);
    for (let i = 0; i < 23; i++) {
      sim.store.create(R.nodes, {
        metadata: {
          name: `node-${String(i).padStart(2, '0')}`,
          labels: { pool: i < 5 ? 'gpu' : 'general' },
        },
        spec: i === 3 ? { unschedulable: true } : {},
      });
    }
    for (let i = 0; i < 6; i++) {
      sim.store.create(R.pods, {
        metadata: { name: `pod-${i}`, namespace: 'default', labels: { app: i % 2 ? 'web' : 'db' } },
        spec: { nodeName: `node-0${i % 3}`, containers: [{ name: 'c', image: 'i' }] },
        status: { phase: i === 5 ? 'Succeeded' : 'Running' },
      });
    }
  });
  after(async () => sim.close());

  it('pages through 23 nodes in 5 pages of 5 with limit/continue', async () => {
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNode({ limit: 5, ...(token ? { _continue: token } : {}) });
      names.push(...page.items.map((n) => n.metadata!.name!));
      token = page.metadata?._continue;
      pages++;
    } while (token);
    assert.equal(pages, 5);
    assert.equal(names.length, 23);
    assert.equal(new Set(names).size, 23);
  });

  const selections = [
    { label: 'pool=gpu', field: undefined, want: 5 },
    { label: 'pool=gpu', field: 'spec.unschedulable=true', want: 1 },
    { label: 'pool notin (gpu)', field: 'metadata.name=node-10', want: 1 },
  ];
  for (const s of selections) {
    it(`selects nodes by ${s.label} ${s.field ?? ''}`, async () => {
      const list = await core.listNode({
        labelSelector: s.label,
        ...(s.field ? { fieldSelector: s.field } : {}),
      });
      assert.equal(list.items.length, s.want);
    });
  }

  it('selects pods by spec.nodeName, status.phase and labels across namespaces', async () => {
    const onNode = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=node-01' });
    assert.deepEqual(onNode.items.map((p) => p.metadata?.name).sort(), ['pod-1', 'pod-4']);
    const running = await core.listNamespacedPod({
      namespace: 'default',
      fieldSelector: 'status.phase!=Succeeded',
      labelSelector: 'app=web',
    });
    assert.deepEqual(running.items.map((p) => p.metadata?.name).sort(), ['pod-1', 'pod-3']);
    await assert.rejects(
      core.listNamespacedPod({ namespace: 'default', fieldSelector: 'spec.bogus=x' }),
      (e: { code?: number }) => e.code === 400,
    );
  });

  it('watch from a list resourceVersion sees exactly the later changes, with selectors', async () => {
    const list = await core.listNode({ labelSelector: 'pool=gpu' });
    const { events } = await collect(
      sim,
      '/api/v1/nodes',
      { resourceVersion: list.metadata!.resourceVersion!, labelSelector: 'pool=gpu' },
      (e) => e.some((x) => x.type === 'DELETED'),
      async () => {
        await core.createNode({ body: { metadata: { name: 'gpu-new', labels: { pool: 'gpu' } } } });
        await core.createNode({
          body: { metadata: { name: 'other-new', labels: { pool: 'general' } } },
        });
        sim.store.mutate(R.nodes, undefined, 'gpu-new', (n) => (n.spec = { unschedulable: true }));
        await core.deleteNode({ name: 'gpu-new' });
      },
    );
    assert.deepEqual(
      events.map((e) => `${e.type}:${e.name}`),
      ['ADDED:gpu-new', 'MODIFIED:gpu-new', 'DELETED:gpu-new'],
    );
  });

  it('a watch without resourceVersion starts with ADDED for existing objects', async () => {
    const { events } = await collect(
      sim,
      '/api/v1/namespaces/default/pods',
      { labelSelector: 'app=db' },
      (e) => e.length >= 3,
    );
    assert.deepEqual(events.map((e) => e.name).sort(), ['pod-0', 'pod-2', 'pod-4']);
    assert.ok(events.every((e) => e.type === 'ADDED'));
  });

  it('resumes from the last seen resourceVersion after a watch ends', async () => {
    const first = await collect(
      sim,
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: sim.store.resourceVersion() },
      (e) => e.length >= 1,
      () =>
        core.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name: 'cm-1' } },
        }),
    );
    const lastRv = first.events.at(-1)!.rv;
    sim.store.create(R.configmaps, { metadata: { name: 'cm-2', namespace: 'default' } });
    sim.store.create(R.configmaps, { metadata: { name: 'cm-3', namespace: 'default' } });
    const resumed = await collect(
      sim,
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: lastRv },
      (e) => e.length >= 2,
    );
    assert.deepEqual(
      resumed.events.map((e) => e.name),
      ['cm-2', 'cm-3'],
    );
  });

  it('sends BOOKMARK events when asked', async () => {
    const { events } = await collect(
      sim,
      '/api/v1/nodes',
      { resourceVersion: sim.store.resourceVersion(), allowWatchBookmarks: true },
      (e) => e.some((x) => x.type === 'BOOKMARK'),
    );
    const bookmark = events.find((e) => e.type === 'BOOKMARK')!;
    assert.equal(bookmark.rv, sim.store.resourceVersion());
  });

  it('a dropped watch (fault) ends the stream so the client must re-watch', async () => {
    sim.api.setFaults([{ resource: 'nodes', verb: 'watch', dropWatchAfterMs: 50, times: 1 }]);
    const { error } = await collect(
      sim,
      '/api/v1/nodes',
      { resourceVersion: sim.store.resourceVersion() },
      () => false,
    );
    sim.api.setFaults([]);
    assert.notEqual(error, 'timeout');
  });

  it('timeoutSeconds closes the stream', async () => {
    const started = Date.now();
    const { error } = await collect(
      sim,
      '/api/v1/nodes',
      { resourceVersion: sim.store.resourceVersion(), timeoutSeconds: 1 },
      () => false,
    );
    assert.notEqual(error, 'timeout');
    assert.ok(Date.now() - started < 4000);
  });
});

describe('sim API over HTTPS: compacted history', () => {
  it('answers 410 Expired in-stream for a too-old watch RV and for an expired continue token', async () => {
    const sim = await startSimApi({ historyLimit: 20 });
    try {
      const early = sim.store.resourceVersion();
      const core = sim.kc.makeApiClient(CoreV1Api);
      for (let i = 0; i < 5; i++) sim.store.create(R.nodes, { metadata: { name: `n${i}` } });
      const page = await core.listNode({ limit: 2 });
      for (let i = 0; i < 30; i++) {
        sim.store.mutate(
          R.nodes,
          undefined,
          'n0',
          (n) => (n.metadata.annotations = { i: String(i) }),
        );
      }
      const { events } = await collect(
        sim,
        '/api/v1/nodes',
        { resourceVersion: early },
        (e) => e.length >= 1,
      );
      assert.deepEqual(
        events.map((e) => [e.type, e.name]),
        [['ERROR', '410']],
      );
      await assert.rejects(
        core.listNode({ limit: 2, _continue: page.metadata!._continue! }),
        (e: { code?: number }) => e.code === 410,
      );
    } finally {
      await sim.close();
    }
  });
});
