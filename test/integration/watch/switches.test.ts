/**
 * The switches people turn from the CLI wake `serve` at once: the pause ConfigMap (`pause`,
 * `resume`) and a slot's holder (`release`); a slot's renewal does not. And serve's console says when
 * the pause switch turns (compose/pause-echo.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { createKubeClient, type KubeClient } from '../../../src/adapters/kube/client.js';
import { controlCluster } from '../../../src/adapters/kube/control-cluster.js';
import { MERGE_PATCH } from '../../../src/adapters/kube/nodes.js';
import { watchForChanges, type WatchTrigger } from '../../../src/adapters/kube/watch-trigger.js';
import { pauseEcho } from '../../../src/compose/pause-echo.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';

const NAMESPACE = 'kubemaint';
const quiet = () => new Promise((r) => setTimeout(r, 400));

describe('the switches wake serve', () => {
  let sim: TestSim;
  let client: KubeClient;
  let trigger: WatchTrigger;
  const calls: string[][] = [];
  const since = (start: number) => calls.slice(start).flat();

  before(async () => {
    sim = await startTestSim({ scenario: 'demo' });
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    client = createKubeClient(kc);
    trigger = watchForChanges(kc, {
      namespace: NAMESPACE,
      onChange: (changes) => calls.push(changes),
      log: pino({ level: 'silent' }),
      debounceMs: 50,
      backoff: { initialMs: 50, maxMs: 200 },
    });
    await trigger.ready;
    await quiet();
  });
  after(async () => {
    trigger.stop();
    await sim.close();
  });

  it('pause and resume are changes of the pause stream, and the console says each once', async () => {
    const cluster = controlCluster(client, { namespace: NAMESPACE, now: () => new Date() });
    const printed: string[] = [];
    const echo = pauseEcho(cluster, (text) => printed.push(text), pino({ level: 'silent' }));
    await echo.check();
    assert.deepEqual(printed, [], 'not paused at start: nothing to say');

    let start = calls.length;
    await cluster.writePause({
      paused: true,
      by: 'k8s:alice',
      at: '2026-11-25T01:02:03.000Z',
      reason: 'launch day',
    });
    await waitFor('the pause change', () =>
      since(start).find((c) => /^pause: kubemaint\/kubemaint-pause (added|changed)$/.test(c)),
    );
    await echo.check();
    await echo.check();
    assert.deepEqual(printed, [
      '01:02:03 | paused   no new maintenance starts (running work finishes) by k8s:alice: launch day\n',
    ]);

    start = calls.length;
    await cluster.writePause({ paused: false, by: 'k8s:bob', at: '2026-11-25T01:05:00.000Z' });
    await waitFor('the resume change', () =>
      since(start).find((c) => c === 'pause: kubemaint/kubemaint-pause changed'),
    );
    await echo.check();
    assert.equal(printed.at(-1), '01:05:00 | resumed  new maintenance may start by k8s:bob\n');
    assert.equal(printed.length, 2);
  });

  it("a slot's holder changing is a change; its renewals and other Leases' holders are not", async () => {
    const lease = (name: string, holder: string, renewed: string) => ({
      metadata: { name, namespace: NAMESPACE },
      spec: { holderIdentity: holder, leaseDurationSeconds: 60, renewTime: renewed as never },
    });
    let start = calls.length;
    await client.coordination.createNamespacedLease({
      namespace: NAMESPACE,
      body: lease('kubemaint-slot-0', 'node-2/r-aaaaaa', '2026-11-25T01:00:00.000000Z'),
    });
    await client.coordination.createNamespacedLease({
      namespace: NAMESPACE,
      body: lease('someone-elses-lock', 'x', '2026-11-25T01:00:00.000000Z'),
    });
    await waitFor('the slot taken', () =>
      since(start).find((c) => c === 'slots: kubemaint/kubemaint-slot-0 added'),
    );
    await quiet();

    start = calls.length;
    await client.coordination.patchNamespacedLease(
      {
        name: 'kubemaint-slot-0',
        namespace: NAMESPACE,
        body: { spec: { renewTime: '2026-11-25T01:00:10.000000Z' } },
      },
      MERGE_PATCH,
    );
    await client.coordination.patchNamespacedLease(
      { name: 'someone-elses-lock', namespace: NAMESPACE, body: { spec: { holderIdentity: 'y' } } },
      MERGE_PATCH,
    );
    await quiet();
    assert.deepEqual(since(start), [], "a slot's renewal and another Lease's holder wake nobody");

    await client.coordination.patchNamespacedLease(
      { name: 'kubemaint-slot-0', namespace: NAMESPACE, body: { spec: { holderIdentity: null } } },
      MERGE_PATCH,
    );
    await waitFor('the slot released', () =>
      since(start).find((c) => c === 'slots: kubemaint/kubemaint-slot-0 changed'),
    );
  });
});
