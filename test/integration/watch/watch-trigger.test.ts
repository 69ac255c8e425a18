import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IncomingMessage } from 'node:http';
import { CoreV1Api, KubeConfig, type V1Job } from '@kubernetes/client-node';
import { pino } from 'pino';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { MERGE_PATCH } from '../../../src/adapters/kube/nodes.js';
import { requestStore } from '../../../src/adapters/kube/requests.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { watchForChanges, type WatchTrigger } from '../../../src/adapters/kube/watch-trigger.js';
import { nodeFingerprint } from '../../../src/adapters/kube/watch-fingerprints.js';
import { R } from '@kubemaint/kubesim';
import { startSimApi, type SimApi } from '@kubemaint/kubesim/testing';
import { installKubemaintKinds } from '../../../src/compose/sim-kinds.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

const NAMESPACE = 'kubemaint';

const labelPatch = (labels: Record<string, string | null>) => ({
  body: { metadata: { labels } },
});

describe('watch trigger against the sim', () => {
  let sim: TestSim;
  let trigger: WatchTrigger;
  const calls: string[][] = [];
  const changesSince = (start: number) => calls.slice(start).flat();

  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const log = pino({ level: 'silent' });
    trigger = watchForChanges(kc, {
      namespace: NAMESPACE,
      onChange: (changes) => calls.push(changes),
      log,
      debounceMs: 50,
      backoff: { initialMs: 50, maxMs: 200 },
    });
    await trigger.ready;
    // The demo's budgets start refusing (no pod Ready yet) and flip once the shop is up: let that
    // settle so each test below sees only the changes it makes.
    await waitFor('the demo budgets to allow a disruption', async () => {
      const pdbs = await sim.policy.listNamespacedPodDisruptionBudget({ namespace: 'shop' });
      return pdbs.items.every((p) => (p.status?.disruptionsAllowed ?? 0) > 0) ? true : undefined;
    });
    await new Promise((r) => setTimeout(r, 300));
  });
  after(async () => {
    trigger.stop();
    await sim.close();
  });

  it('reports a node getting the reboot-required label, once per burst', async () => {
    const start = calls.length;
    await sim.core.patchNode(
      { name: 'node-1', ...labelPatch({ 'kubemaint.io/reboot-required': 'true' }) },
      MERGE_PATCH,
    );
    await sim.core.patchNode(
      { name: 'node-3', ...labelPatch({ 'kubemaint.io/reboot-required': 'true' }) },
      MERGE_PATCH,
    );
    const changes = await waitFor('onChange for node-1 and node-3', () => {
      const seen = changesSince(start);
      return seen.some((c) => c.includes('/node-1')) && seen.some((c) => c.includes('/node-3'))
        ? seen
        : undefined;
    });
    assert.ok(
      changes.every((c) => c.startsWith('nodes kubemaint.io/reboot-required')),
      String(changes),
    );
    assert.ok(calls.length - start <= 2, `a burst is debounced, got ${calls.length - start} calls`);
  });

  it('ignores heartbeats of watched nodes but reports a request being written', async () => {
    // Several seconds of sim time pass (scale 100): kubelets heartbeat, nothing that matters changes.
    const start = calls.length;
    await new Promise((r) => setTimeout(r, 600));
    assert.deepEqual(changesSince(start), []);
    await sim.core.patchNode(
      { name: 'node-1', ...labelPatch({ 'kubemaint.io/state': 'proposed' }) },
      MERGE_PATCH,
    );
    // node-1 carries the reboot-required label too (the test before), so this one write comes down
    // both node streams with one resourceVersion, and the trigger reports whichever came first and
    // drops the other: either stream's name may head the change.
    const changes = await waitFor('onChange for the state label', () =>
      changesSince(start).find(
        (c) =>
          (c.startsWith('nodes kubemaint.io/state') ||
            c.startsWith('nodes kubemaint.io/reboot-required')) &&
          c.includes('/node-1'),
      ),
    );
    // Entering the selector: ADDED on kube-apiserver, MODIFIED on the sim; either is a change.
    assert.match(changes, /node-1 (added|changed)/);
  });

  it("reports a person's new request, its state moving and a decision, not drain progress", async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const store = requestStore(createKubeClient(kc), { namespace: NAMESPACE });
    const at = sim.clock.now().toISOString();
    const asked: MaintenanceRequest = {
      id: 'r-a5a5a5',
      node: 'node-5',
      action: 'reboot',
      state: 'proposed',
      reason: 'kernel',
      requestedBy: 'k8s:alice',
      origin: 'person',
      createdAt: at,
      updatedAt: at,
      approvals: [],
      history: [],
    };
    const key = `${NAMESPACE}/${asked.id}`;
    let start = calls.length;
    await store.submit(asked);
    assert.equal(
      await waitFor('onChange for the new request', () =>
        changesSince(start).find((c) => c.includes(key)),
      ),
      `maintenancerequests: ${key} added`,
    );
    start = calls.length;
    const accepted = (await store.get(asked.id))!;
    const version = await store.writeStatus(asked, accepted.resourceVersion);
    await waitFor('onChange for the accepted request', () =>
      changesSince(start).includes(`maintenancerequests: ${key} changed`),
    );
    // Drain progress moves often and wakes nobody.
    start = calls.length;
    await store.writeStatus(
      { ...asked, drain: { total: 3, evicted: 1, waitingOn: [], message: '1 of 3 pods evicted' } },
      version,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      changesSince(start).filter((c) => c.includes(key)),
      [],
    );
    start = calls.length;
    const { name } = await store.decide({
      request: asked.id,
      by: 'k8s:alice',
      decision: 'approve',
      groups: [],
    });
    assert.equal(
      await waitFor('onChange for the decision', () =>
        changesSince(start).find((c) => c.startsWith('maintenanceapprovals')),
      ),
      `maintenanceapprovals: ${NAMESPACE}/${name} added`,
    );
  });

  it("reports kubemaint's Job running and finishing", async () => {
    const start = calls.length;
    const job: V1Job = {
      metadata: {
        name: 'kubemaint-r-abc123-node-2',
        namespace: NAMESPACE,
        labels: { 'app.kubernetes.io/managed-by': 'kubemaint', 'kubemaint.io/node': 'node-2' },
      },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            nodeName: 'node-2',
            restartPolicy: 'Never',
            tolerations: [{ operator: 'Exists' }],
            containers: [{ name: 'executor', image: 'example.invalid/noop:1' }],
          },
        },
      },
    };
    await sim.batch.createNamespacedJob({ namespace: NAMESPACE, body: job });
    await waitFor('the Job to succeed', async () => {
      const read = await sim.batch.readNamespacedJob({
        name: job.metadata!.name!,
        namespace: NAMESPACE,
      });
      return (read.status?.succeeded ?? 0) > 0;
    });
    const changes = await waitFor('onChange for the finished Job', () => {
      const seen = changesSince(start).filter((c) =>
        c.includes(`${NAMESPACE}/${job.metadata!.name!}`),
      );
      return seen.some((c) => c.endsWith('changed')) ? seen : undefined;
    });
    assert.ok(
      changes[0]?.startsWith('jobs app.kubernetes.io/managed-by=kubemaint'),
      String(changes),
    );
    assert.ok(
      changes.some((c) => c.endsWith('added')),
      String(changes),
    );
  });

  it('reports a PDB that starts allowing a disruption, and not one that keeps refusing', async () => {
    // shop/api's pods are Ready in the demo; a budget above their count refuses every disruption.
    const name = 'watch-test-budget';
    await sim.policy.createNamespacedPodDisruptionBudget({
      namespace: 'shop',
      body: {
        metadata: { name },
        spec: { minAvailable: 99, selector: { matchLabels: { app: 'api' } } },
      },
    });
    const created = calls.length;
    await waitFor('onChange for the new budget', () =>
      changesSince(created).includes(`poddisruptionbudgets: shop/${name} added`),
    );
    await waitFor('the disruption controller to judge the budget', async () => {
      const pdb = await sim.policy.readNamespacedPodDisruptionBudget({ name, namespace: 'shop' });
      return pdb.status?.observedGeneration === pdb.metadata?.generation ? true : undefined;
    });
    const start = calls.length;
    await sim.policy.patchNamespacedPodDisruptionBudget(
      { name, namespace: 'shop', body: { spec: { minAvailable: 98 } } },
      MERGE_PATCH,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      changesSince(start).filter((c) => c.includes(name)),
      [],
      'still refusing: not a change',
    );
    await sim.policy.patchNamespacedPodDisruptionBudget(
      { name, namespace: 'shop', body: { spec: { minAvailable: 0 } } },
      MERGE_PATCH,
    );
    const change = await waitFor('onChange for the budget', () =>
      changesSince(start).find((c) => c.includes(`shop/${name}`)),
    );
    assert.equal(change, `poddisruptionbudgets: shop/${name} changed`);
    await sim.policy.deleteNamespacedPodDisruptionBudget({ name, namespace: 'shop' });
  });

  it('a node in both node streams is one change; its return from a reboot is passed on at once', async () => {
    // Bursts here end only after 10 s of quiet: anything heard sooner was not held for one.
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const heard: string[][] = [];
    const slow = watchForChanges(kc, {
      namespace: NAMESPACE,
      onChange: (changes) => heard.push(changes),
      log: pino({ level: 'silent' }),
      debounceMs: 10_000,
      maxWaitMs: 30_000,
    });
    const ofNode5 = () => heard.flat().filter((c) => c.includes('/node-5'));
    // What changed on node-5 in what the trigger keeps, as the sim committed it.
    const versions = [nodeFingerprint(sim.store.get(R.nodes, undefined, 'node-5')!)];
    const unwatch = sim.store.watch(R.nodes, (event) => {
      if (event.object.metadata.name !== 'node-5') return;
      const print = nodeFingerprint(event.object);
      if (versions.at(-1) !== print) versions.push(print);
    });
    try {
      await slow.ready;
      // node-5 is marked (the demo's); with a request's state label it is in both node streams.
      await sim.core.patchNode(
        { name: 'node-5', ...labelPatch({ 'kubemaint.io/state': 'verifying' }) },
        MERGE_PATCH,
      );
      await waitFor('the first change after the quiet spell', () => heard.length > 0 || undefined);
      const leading = heard.length;
      await sim.core.patchNode(
        { name: 'node-5', ...labelPatch({ 'kubemaint.io/pool': 'blue' }) },
        MERGE_PATCH,
      );
      const bootBefore = (await sim.core.readNode({ name: 'node-5' })).status?.nodeInfo?.bootID;
      sim.admin.reboot('node-5');
      await waitFor('node-5 back with a new boot id', async () => {
        const node = await sim.core.readNode({ name: 'node-5' });
        const ready = node.status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        );
        return ready && node.status?.nodeInfo?.bootID !== bootBefore ? true : undefined;
      });
      // The burst (the pool label, the node going down) is still open; the return ends it at once.
      await waitFor('the return passed on', () => heard.length > leading || undefined, 5_000);
      assert.equal(heard.length, leading + 1, 'the burst and the return, in one call');
      // Each change of node-5 was heard once, not once from each stream.
      // (versions[0] is node-5 as it was before.)
      assert.equal(ofNode5().length, versions.length - 1, ofNode5().join('\n'));
    } finally {
      slow.stop();
      unwatch();
      await sim.core.patchNode(
        {
          name: 'node-5',
          ...labelPatch({ 'kubemaint.io/state': null, 'kubemaint.io/pool': null }),
        },
        MERGE_PATCH,
      );
    }
  });

  it('resumes after the API server drops its watches', async () => {
    // Faults apply to watches opened from now on: a second trigger meets them from its start.
    sim.admin.setFaults([{ resource: 'nodes', verb: 'watch', dropWatchAfterMs: 30, times: 6 }]);
    const lines: string[] = [];
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const seen: string[][] = [];
    const second = watchForChanges(kc, {
      namespace: NAMESPACE,
      onChange: (changes) => seen.push(changes),
      log: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }),
      debounceMs: 50,
      backoff: { initialMs: 20, maxMs: 100 },
    });
    try {
      await second.ready;
      const ends = () => lines.filter((l) => /watch stream (ended|failed)/.test(l)).length;
      await waitFor('six dropped node watches', () => (ends() >= 6 ? true : undefined));
      sim.admin.setFaults([]);
      await sim.core.patchNode(
        { name: 'node-6', ...labelPatch({ 'kubemaint.io/reboot-required': 'true' }) },
        MERGE_PATCH,
      );
      await waitFor('onChange for node-6 after the drops', () =>
        seen.flat().some((c) => c.includes('/node-6')),
      );
    } finally {
      second.stop();
    }
    // Stopped means silent: a change now reaches the first trigger but not the stopped one.
    const heard = seen.length;
    const start = calls.length;
    await sim.core.patchNode(
      { name: 'node-6', ...labelPatch({ 'kubemaint.io/reboot-required': null }) },
      MERGE_PATCH,
    );
    await sim.core.patchNode(
      { name: 'node-4', ...labelPatch({ 'kubemaint.io/reboot-required': 'true' }) },
      MERGE_PATCH,
    );
    await waitFor('the running trigger to hear node-4', () =>
      changesSince(start).some((c) => c.includes('/node-4')),
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(seen.length, heard, 'no onChange after stop()');
  });
});

describe('watch trigger on a large marked fleet', () => {
  let sim: SimApi;
  const lists: URL[] = [];
  const MARKED = 1_100;

  before(async () => {
    sim = await startSimApi();
    await installKubemaintKinds(sim.kc);
    sim.store.create(R.namespaces, { metadata: { name: NAMESPACE } });
    for (let i = 0; i < MARKED; i++) {
      sim.store.create(R.nodes, {
        metadata: { name: `big-${i}`, labels: { 'kubemaint.io/reboot-required': 'true' } },
      });
    }
    sim.api.server.prependListener('request', (req: IncomingMessage) => {
      const url = new URL(req.url ?? '/', 'https://sim');
      if (req.method === 'GET' && url.searchParams.get('watch') !== 'true') lists.push(url);
    });
  });
  after(() => sim.close());

  it('lists in pages of 500 from one snapshot, and then hears a node of the last page', async () => {
    const core = sim.kc.makeApiClient(CoreV1Api);
    const calls: string[][] = [];
    const trigger = watchForChanges(sim.kc, {
      namespace: NAMESPACE,
      onChange: (changes) => calls.push(changes),
      log: pino({ level: 'silent' }),
      debounceMs: 50,
    });
    try {
      await trigger.ready;
      const marked = lists.filter(
        (u) =>
          u.pathname === '/api/v1/nodes' &&
          u.searchParams.get('labelSelector') === 'kubemaint.io/reboot-required',
      );
      assert.deepEqual(
        marked.map((u) => [u.searchParams.get('limit'), u.searchParams.has('continue')]),
        [
          ['500', false],
          ['500', true],
          ['500', true],
        ],
      );
      // Every list of the trigger is paged, not only the nodes'.
      assert.ok(
        lists.every((u) => u.searchParams.get('limit') === '500'),
        lists.map(String).join('\n'),
      );
      // The watch starts where the paged snapshot was read: the last page's nodes are known (an
      // unchanged fleet is silent) and a change to one of them is heard.
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(calls.flat(), []);
      await core.patchNode(
        { name: `big-${MARKED - 1}`, ...labelPatch({ 'kubemaint.io/reboot-required': null }) },
        MERGE_PATCH,
      );
      await waitFor('the change to the last node', () =>
        calls.flat().some((c) => c.includes(`/big-${MARKED - 1}`)),
      );
    } finally {
      trigger.stop();
    }
  });
});
