/**
 * What one tick reads from the API server, counted request by request (issue 20): an idle tick is
 * two lists (the requests, the marked nodes), and a skew scan reads the requests once, not once for
 * the active ones and again to join the node list; a tick that writes a request reads them again.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import { installKubemaintKinds } from '../../../src/compose/sim-kinds.js';
import { LABEL_REBOOT_REQUIRED } from '../../../src/core/names.js';
import { testControlDeps } from '../../support/control.js';
import { startSimApi, type SimApi } from '@kubemaint/kubesim/testing';

const NODES = 7;

describe('what a tick reads', () => {
  let sim: SimApi;
  let deps: TickDeps;
  const seen: string[] = [];
  const queries: string[] = [];

  before(async () => {
    sim = await startSimApi({ version: { major: '1', minor: '31', gitVersion: 'v1.31.4' } });
    await installKubemaintKinds(sim.kc);
    const core = sim.kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'kubemaint' } } });
    for (let i = 0; i < NODES; i++) {
      await core.createNode({
        body: {
          metadata: { name: `node-${i}` },
          status: {
            conditions: [{ type: 'Ready', status: 'True' }],
            nodeInfo: { kubeletVersion: 'v1.31.4', bootID: `boot-${i}` } as never,
          },
        },
      });
    }
    sim.api.server.prependListener('request', (req: IncomingMessage) =>
      seen.push(`${req.method} ${(req.url ?? '').replace(/\?.*/, '')}`),
    );
    sim.api.server.prependListener('request', (req: IncomingMessage) =>
      queries.push(decodeURIComponent(req.url ?? '')),
    );
    deps = testControlDeps({ kubeconfigPath: sim.kubeconfigPath, clock: { now: sim.now } });
  });
  after(() => sim.close());

  async function reads(tick: () => Promise<unknown>): Promise<string[]> {
    seen.length = 0;
    await tick();
    return [...seen];
  }
  const requestLists = (lines: readonly string[]) =>
    lines.filter(
      (l) => l === 'GET /apis/kubemaint.io/v1beta1/namespaces/kubemaint/maintenancerequests',
    );

  it('idle: the requests and the marked nodes, nothing else', async () => {
    assert.deepEqual(await reads(() => runTick(deps)), [
      'GET /apis/kubemaint.io/v1beta1/namespaces/kubemaint/maintenancerequests',
      'GET /api/v1/nodes',
    ]);
  });

  it('a skew scan reads the requests once, beside the node list and every apiserver it can find', async () => {
    const lines = await reads(() => runTick(deps, { skewScan: true }));
    assert.equal(requestLists(lines).length, 1, lines.join('\n'));
    // The apiservers' sources (ADR 0050): identity Leases, the kubernetes EndpointSlice, static
    // pods, then /version; each read once.
    assert.equal(lines.length, new Set(lines).size, lines.join('\n'));
    assert.deepEqual(
      [...new Set(lines)].sort(),
      [
        'GET /api/v1/namespaces/kube-system/pods',
        'GET /api/v1/nodes',
        'GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases',
        'GET /apis/discovery.k8s.io/v1/namespaces/default/endpointslices',
        'GET /apis/kubemaint.io/v1beta1/namespaces/kubemaint/maintenancerequests',
        'GET /version',
      ].sort(),
    );
  });

  it('with an active request: read once when the tick writes nothing, again after it writes', async () => {
    await deps.cluster.patchNode('node-3', { labels: { [LABEL_REBOOT_REQUIRED]: 'true' } });
    const proposing = await reads(() => runTick(deps));
    assert.ok(
      proposing.some((l) => l.startsWith('POST ')),
      `it proposed:\n${proposing.join('\n')}`,
    );
    const quiet = await reads(() => runTick(deps));
    assert.equal(requestLists(quiet).length, 1, quiet.join('\n'));

    const [node] = await deps.cluster.listRequestNodes('active');
    await deps.cluster.decide({
      request: node!.request!.id,
      by: 'k8s:alice',
      decision: 'approve',
      groups: [],
    });
    const applying = await reads(() => runTick(deps));
    assert.ok(
      applying.some((l) => l.startsWith('PUT ')),
      `it wrote:\n${applying.join('\n')}`,
    );
    assert.ok(requestLists(applying).length >= 2, applying.join('\n'));
  });

  it("one node's view reads that node's requests (field selector spec.node), not all of them", async () => {
    queries.length = 0;
    const view = await deps.cluster.getNode('node-3');
    assert.equal(view?.request?.node, 'node-3');
    const lists = queries.filter((q) => q.includes('/maintenancerequests'));
    assert.deepEqual(
      lists.map((q) => /fieldSelector=([^&]*)/.exec(q)?.[1]),
      ['spec.node=node-3'],
    );
  });

  it('a read outside the pass (a Slack click during a tick) reads afresh', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Continued outside the pass's async context, as work a Slack request started would be.
    const outside = gate.then(() => deps.cluster.listRequestNodes('all'));
    seen.length = 0;
    await deps.cluster.onePass!(async () => {
      await deps.cluster.listRequestNodes('active');
      release();
      await outside;
      await deps.cluster.listRequestNodes('active');
    });
    assert.equal(requestLists(seen).length, 2, seen.join('\n'));
  });
});
