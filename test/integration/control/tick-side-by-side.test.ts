/**
 * The tick steps nodes side by side (issue 20): a wave of nodes back from their reboots is proven
 * in about the time of one, not one after another. Each node's step still runs whole, the report
 * keeps the order of the requests, and a step that throws lets the others finish before the tick
 * fails (nothing of a tick is still running when the next one starts).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { DURATIONS_CONFIGMAP, configMapDurations } from '../../../src/adapters/kube/durations.js';
import type { ClusterPort } from '../../../src/app/control/ports.js';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import { LABEL_STATE } from '../../../src/core/names.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps } from '../../support/control.js';
import { requestOn } from '../../support/in-process-executor.js';
import { requestReader } from '../../support/requests.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const NODES = ['node-1', 'node-3', 'node-6'];
const MIN = 60_000;

/** Lets callers through once `size` of them wait together, or each after `timeoutMs` alone. */
function gathering(size: number, timeoutMs: number) {
  let waiting = 0;
  let most = 0;
  let open!: () => void;
  const together = new Promise<void>((resolve) => (open = resolve));
  return {
    most: () => most,
    async pass(): Promise<void> {
      waiting += 1;
      most = Math.max(most, waiting);
      if (waiting === size) open();
      await Promise.race([together, new Promise((r) => setTimeout(r, timeoutMs))]);
      waiting -= 1;
    },
  };
}

describe('the tick steps nodes side by side', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
  });
  after(async () => sim.close());

  let seeded = 0;
  /** Each of NODES rebooted by its request and back: the next tick proves it. */
  beforeEach(async () => {
    const now = sim.clock.now();
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    for (const [i, node] of NODES.entries()) {
      seeded += 1;
      const id = `r-5bd${seeded.toString(16).padStart(3, '0')}`;
      const request: MaintenanceRequest = {
        id,
        node,
        action: 'reboot',
        state: 'verifying',
        reason: 'kernel',
        requestedBy: 'k8s:alice',
        createdAt: at(-30 * MIN),
        updatedAt: at(-MIN),
        approvals: [{ by: 'k8s:alice', at: at(-29 * MIN) }],
        history: [
          { from: 'approved', to: 'running', at: at(-(20 + i) * MIN), by: 'kubemaint' },
          { from: 'running', to: 'verifying', at: at(-10 * MIN), by: 'executor' },
        ],
        cordonedByUs: true,
        wasCordoned: false,
        bootIdBefore: 'boot-before-the-reboot',
        hostCommandIssuedAt: at(-10 * MIN),
        announced: ['host'],
      };
      await requestReader(sim.kubeconfigPath).seed(request);
      sim.store.mutate(R.nodes, undefined, node, (n) => {
        n.spec = { ...n.spec, unschedulable: true };
        n.metadata.labels = { ...n.metadata.labels, [LABEL_STATE]: 'verifying' };
      });
    }
  });

  function depsWith(patchNode: (original: ClusterPort['patchNode']) => ClusterPort['patchNode']) {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const base = testControlDeps(sim);
    const deps: TickDeps = {
      ...base,
      cluster: {
        ...base.cluster,
        patchNode: patchNode((node, patch) => base.cluster.patchNode(node, patch)),
      },
      durations: configMapDurations(createKubeClient(kc), 'kubemaint'),
    };
    return deps;
  }

  it('proves a wave of nodes at once, and says so in the order of the requests', async () => {
    // Each node's hand-back (its uncordon) waits until all three are handing back together: one
    // after another, each would wait alone.
    const gate = gathering(NODES.length, 1_500);
    const deps = depsWith((original) => async (node, patch) => {
      await gate.pass();
      return original(node, patch);
    });
    const report = await runTick(deps);
    assert.equal(gate.most(), NODES.length, 'the three hand-backs were under way together');
    for (const node of NODES) assert.equal(requestOn(sim, node)?.state, 'done', node);
    assert.deepEqual(
      report.reconciled.map((line) => line.split(':')[0]),
      [...NODES].sort(),
      'the report in the order the requests were listed',
    );
    assert.ok(
      report.reconciled.every((line) => line.endsWith('done')),
      report.reconciled.join('\n'),
    );
    // Each recorded what it took, none lost to the others writing the same book.
    const book = sim.store.get(R.configmaps, 'kubemaint', DURATIONS_CONFIGMAP);
    const samples = JSON.parse(
      String((book?.['data'] as Record<string, string> | undefined)?.['durations.json']),
    ) as Record<string, { node: string }[]>;
    assert.deepEqual(samples['reboot/']?.map((s) => s.node).sort(), [...NODES].sort());
  });

  it("hands a node back while its 'back' news goes out, and says it before the request is done", async () => {
    // Both lie between a node's proof and the next node's start (issue 34). The Event of the news
    // waits (at most 1.5 s) until the node is being handed back: one after the other, it never is.
    const handedBack = new Set<string>();
    const deps = depsWith((original) => async (node, patch) => {
      handedBack.add(node);
      return original(node, patch);
    });
    const recordEvent = deps.cluster.recordEvent.bind(deps.cluster);
    const overlapped = new Set<string>();
    const saidFirst = new Set<string>();
    deps.cluster = {
      ...deps.cluster,
      async recordEvent(node, event) {
        if (event.reason !== 'KubemaintBack') return recordEvent(node, event);
        for (const until = Date.now() + 1_500; !handedBack.has(node) && Date.now() < until;)
          await new Promise((r) => setTimeout(r, 10));
        if (handedBack.has(node)) overlapped.add(node);
        // Longer than the rest of the step: a step that did not wait for its news would end first.
        await new Promise((r) => setTimeout(r, 1_000));
        await recordEvent(node, event);
        if (requestOn(sim, node)?.state !== 'done') saidFirst.add(node);
      },
    };
    await runTick(deps);
    assert.deepEqual([...overlapped].sort(), [...NODES].sort(), 'handed back during the news');
    assert.deepEqual([...saidFirst].sort(), [...NODES].sort(), "'back' said before 'done' written");
    for (const node of NODES) assert.equal(requestOn(sim, node)?.state, 'done', node);
  });

  it('a step that throws fails the tick only once every other step has ended', async () => {
    let started = 0;
    let ended = 0;
    const deps = depsWith((original) => async (node, patch) => {
      if (node === NODES[0]) throw new Error(`the apiserver refused ${node}`);
      started += 1;
      await new Promise((r) => setTimeout(r, 300));
      await original(node, patch);
      ended += 1;
    });
    await assert.rejects(runTick(deps), /the apiserver refused node-1/);
    assert.equal(started, NODES.length - 1, 'the other nodes were stepped beside it');
    assert.equal(ended, started, 'and had ended when the tick failed');
    // The next tick finishes the one that failed.
    await runTick(depsWith((original) => original));
    for (const node of NODES) assert.equal(requestOn(sim, node)?.state, 'done', node);
  });
});
