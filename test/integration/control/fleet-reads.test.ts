/**
 * What a tick reads of the nodes when a roll has many requests (issue 34): the nodes with requests
 * by their `kubemaint.io/state` mirror (a label kube-apiserver selects), not every node of the fleet
 * on every tick; and in `serve`, the whole fleet the health gates judge from a watch of the nodes
 * (node-cache.ts, ADR 0059) that answers what a list would, including what serve itself just wrote.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import type { NodeView } from '../../../src/app/control/ports.js';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { controlCluster } from '../../../src/adapters/kube/control-cluster.js';
import { MERGE_PATCH } from '../../../src/adapters/kube/nodes.js';
import { watchNodes, type NodeCache } from '../../../src/adapters/kube/node-cache.js';
import { installKubemaintKinds } from '../../../src/compose/sim-kinds.js';
import { LABEL_REBOOT_REQUIRED, LABEL_STATE } from '../../../src/core/names.js';
import { testControlDeps } from '../../support/control.js';
import { startSimApi, type SimApi } from '@kubemaint/kubesim/testing';

const NODES = 30;
const MARKED = 14; // more than the ten a tick reads one by one
const log = pino({ level: 'silent' });

describe('what a tick reads of the nodes, many requests in flight', () => {
  let sim: SimApi;
  let deps: TickDeps;
  let cached: TickDeps;
  let cache: NodeCache;
  const queries: string[] = [];
  /** The node lists (not watches) that selected nothing: each one reads the whole fleet. */
  const wholeFleetLists = () =>
    queries.filter(
      (q) =>
        q.startsWith('GET /api/v1/nodes?') &&
        !q.includes('watch=true') &&
        !q.includes('labelSelector=') &&
        !q.includes('fieldSelector='),
    );

  before(async () => {
    sim = await startSimApi({ version: { major: '1', minor: '31', gitVersion: 'v1.31.4' } });
    await installKubemaintKinds(sim.kc);
    const core = sim.kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'kubemaint' } } });
    for (let i = 0; i < NODES; i++) {
      await core.createNode({
        body: {
          metadata: {
            name: `node-${String(i).padStart(2, '0')}`,
            labels: i < MARKED ? { [LABEL_REBOOT_REQUIRED]: 'true' } : {},
          },
          status: {
            conditions: [{ type: 'Ready', status: 'True' }],
            nodeInfo: { kubeletVersion: 'v1.31.4', bootID: `boot-${i}` } as never,
          },
        },
      });
    }
    sim.api.server.prependListener('request', (req: IncomingMessage) =>
      queries.push(`${req.method} ${decodeURIComponent((req.url ?? '').replaceAll('+', ' '))}`),
    );
    deps = testControlDeps({ kubeconfigPath: sim.kubeconfigPath, clock: { now: sim.now } });
    cache = watchNodes(sim.kc, { log });
    cached = {
      ...deps,
      cluster: controlCluster(createKubeClient(sim.kc), {
        namespace: 'kubemaint',
        now: sim.now,
        nodeCache: cache,
      }),
    };
    await cache.listed;
  });
  after(async () => {
    cache.stop();
    await sim.close();
  });

  const byName = (views: readonly NodeView[]) =>
    [...views].sort((a, b) => a.name.localeCompare(b.name));

  it('reads the nodes with requests by their state label, never the whole fleet', async () => {
    await runTick(deps); // proposes one request per marked node
    const active = await deps.cluster.listRequestNodes('active');
    assert.equal(active.length, MARKED);
    queries.length = 0;
    await runTick(deps);
    assert.deepEqual(wholeFleetLists(), [], queries.join('\n'));
    const selected = queries.filter((q) => q.includes(`labelSelector=${LABEL_STATE} in (`));
    assert.ok(selected.length > 0, queries.join('\n'));
  });

  it('a node whose state label lags is read alone, not taken for gone', async () => {
    const core = sim.kc.makeApiClient(CoreV1Api);
    await core.patchNode(
      { name: 'node-03', body: { metadata: { labels: { [LABEL_STATE]: null } } } },
      MERGE_PATCH,
    );
    queries.length = 0;
    const active = await deps.cluster.onePass!(() => deps.cluster.listRequestNodes('active'));
    assert.equal(active.length, MARKED);
    assert.equal(active.filter((n) => n.missing).length, 0);
    assert.ok(
      queries.some((q) => q.startsWith('GET /api/v1/nodes/node-03')),
      queries.join('\n'),
    );
  });

  it("a node whose label shows another active state (an executor's verifying) comes with the list", async () => {
    const core = sim.kc.makeApiClient(CoreV1Api);
    // The executor writes `verifying` to the request; the node's mirror moves on serve's next write.
    await core.patchNode(
      { name: 'node-04', body: { metadata: { labels: { [LABEL_STATE]: 'running' } } } },
      MERGE_PATCH,
    );
    queries.length = 0;
    const active = await deps.cluster.onePass!(() => deps.cluster.listRequestNodes('active'));
    assert.equal(active.find((n) => n.name === 'node-04')?.request?.state, 'proposed');
    assert.equal(active.filter((n) => n.missing).length, 0);
    assert.deepEqual(
      queries.filter((q) => q.startsWith('GET /api/v1/nodes/')),
      ['GET /api/v1/nodes/node-03'], // the one without a label (above), and only it
      queries.join('\n'),
    );
  });

  it('in a roll, the nodes are listed beside the requests, not once they are read', async () => {
    const read = () => deps.cluster.onePass!(() => deps.cluster.listRequestNodes('active'));
    await read(); // finds more than ten active requests: the next read lists their nodes at once
    // The requests' answer is held 300 ms; a node list sent after it arrives after that.
    const seen: string[] = [];
    const hold = (req: IncomingMessage, res: ServerResponse) => {
      const url = decodeURIComponent(req.url ?? '').replaceAll('+', ' ');
      if (req.method !== 'GET' || url.includes('watch=true')) return;
      if (url.includes('/maintenancerequests')) {
        const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
        res.end = ((...args: unknown[]) => {
          setTimeout(() => {
            seen.push('requests answered');
            end(...args);
          }, 300);
          return res;
        }) as typeof res.end;
      } else if (url.startsWith(`/api/v1/nodes?labelSelector=${LABEL_STATE} in (`))
        seen.push(`nodes listed: ${url.slice(url.indexOf('('), url.indexOf(')') + 1)}`);
    };
    sim.api.server.prependListener('request', hold);
    try {
      const active = await read();
      assert.equal(active.length, MARKED);
      assert.equal(active.filter((n) => n.missing).length, 0);
    } finally {
      sim.api.server.off('request', hold);
    }
    assert.deepEqual(seen, [
      'nodes listed: (approved,proposed,running,verifying)',
      'requests answered',
    ]);
  });

  it("an Event names its node's uid as the tick read it, without reading the node again", async () => {
    const core = sim.kc.makeApiClient(CoreV1Api);
    const uidOf = async (name: string) => (await core.readNode({ name })).metadata?.uid;
    const eventsOn = async (name: string, reason: string) =>
      (await core.listNamespacedEvent({ namespace: 'default' })).items.filter(
        (e) => e.involvedObject.name === name && e.reason === reason,
      );
    const [first] = await deps.cluster.listRequestNodes('active');
    queries.length = 0;
    await deps.cluster.recordEvent(first!.name, { reason: 'KubemaintRead', message: 'read' });
    assert.deepEqual(
      queries.filter((q) => q.startsWith('GET /api/v1/nodes/')),
      [],
      queries.join('\n'),
    );
    const [read] = await eventsOn(first!.name, 'KubemaintRead');
    assert.equal(read?.involvedObject.uid, await uidOf(first!.name));
    // A node this port has not read yet is read for its uid.
    const fresh = controlCluster(createKubeClient(sim.kc), {
      namespace: 'kubemaint',
      now: sim.now,
    });
    queries.length = 0;
    await fresh.recordEvent('node-29', { reason: 'KubemaintUnread', message: 'unread' });
    assert.deepEqual(
      queries.filter((q) => q.startsWith('GET /api/v1/nodes/')),
      ['GET /api/v1/nodes/node-29'],
    );
    const [unread] = await eventsOn('node-29', 'KubemaintUnread');
    assert.equal(unread?.involvedObject.uid, await uidOf('node-29'));
  });

  it('the watched fleet is what a list says, node for node', async () => {
    const listed = byName(await deps.cluster.listNodes());
    const watched = byName(await cached.cluster.listNodes());
    assert.equal(watched.length, NODES);
    assert.deepEqual(watched, listed);
  });

  it("dispatch's health gates read the fleet from the cache: no whole-fleet list in the tick", async () => {
    for (const node of await deps.cluster.listRequestNodes('active'))
      await deps.cluster.decide({
        request: node.request!.id,
        by: 'k8s:alice',
        decision: 'approve',
        groups: [],
      });
    queries.length = 0;
    await runTick(deps);
    assert.ok(wholeFleetLists().length > 0, 'without the cache, dispatch lists every node');
    queries.length = 0;
    const report = await runTick(cached);
    assert.ok(report.dispatched.length > 0, JSON.stringify(report));
    assert.deepEqual(wholeFleetLists(), [], queries.join('\n'));
  });

  it("a read after serve's own node write sees it (the soak gate's last-maintenance)", async () => {
    await cached.cluster.patchNode('node-20', {
      annotations: { 'kubemaint.io/last-maintenance': '2026-12-03T09:00:00Z' },
    });
    const view = (await cached.cluster.listNodes()).find((n) => n.name === 'node-20');
    assert.equal(view?.annotations['kubemaint.io/last-maintenance'], '2026-12-03T09:00:00Z');
  });

  it('a cache that cannot catch up with a write answers nothing, and the port lists instead', async () => {
    const lagging = watchNodes(sim.kc, { log, waitMs: 100 });
    try {
      await lagging.listed;
      lagging.wrote('999999999999'); // a version the watch will not see in 100 ms
      assert.equal(await lagging.nodes(), undefined);
      const port = controlCluster(createKubeClient(sim.kc), {
        namespace: 'kubemaint',
        now: sim.now,
        nodeCache: lagging,
      });
      queries.length = 0;
      assert.equal((await port.listNodes()).length, NODES);
      assert.equal(wholeFleetLists().length, 1, queries.join('\n'));
    } finally {
      lagging.stop();
    }
  });
});
