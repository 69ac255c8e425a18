/**
 * The control plane's tick against the embedded sim over real HTTPS: detection, proposals that two
 * ticks cannot double, approval through the same commands the CLI and Slack use, dispatch through the
 * policy gates to exactly one Job, blocked reasons, failure handling and the proof after a reboot.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { approveRequest, setPause, requestMaintenance } from '../../../src/app/control/commands.js';
import type { Notifier } from '../../../src/app/control/ports.js';
import { runTick, type TickDeps } from '../../../src/app/control/tick.js';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { controlCluster } from '../../../src/adapters/kube/control-cluster.js';
import type { MaintenanceEvent } from '../../../src/core/events.js';
import { jobName } from '../../../src/core/names.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';
import { testControlSettings } from '../../support/control.js';
import { requestReader } from '../../support/requests.js';

const settingsFor = testControlSettings;

describe('tick on the demo sim', () => {
  let sim: TestSim;
  let deps: TickDeps;
  const events: MaintenanceEvent[] = [];
  const alice = { kind: 'person', id: 'k8s:alice' } as const;

  before(async () => {
    // The noop executor Job runs 1 sim minute (3 s of wall time at scale 20; a slower clock also keeps kubelet heartbeats from racing every write), long enough to see it hold a slot.
    sim = await startTestSim({ scenario: 'demo', scale: 20, delays: { jobPodRunMs: 60_000 } });
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const client = createKubeClient(kc);
    const notifier: Notifier = { notify: async (event) => void events.push(event) };
    const clock = { now: () => sim.clock.now() };
    deps = {
      cluster: controlCluster(client, { namespace: 'kubemaint', now: clock.now }),
      notifier,
      clusterName: 'sim',
      settings: settingsFor(),
      clock,
      randomBytes: (n) => new Uint8Array(randomBytes(n)),
    };
  });
  after(async () => sim.close());

  const requestOn = (node: string): Promise<MaintenanceRequest | undefined> =>
    requestReader(sim.kubeconfigPath).ofNode(node);

  it('proposes the two marked nodes as one campaign, and a second tick proposes nothing more', async () => {
    const first = await runTick(deps);
    assert.deepEqual(first.proposed.sort(), ['node-2: reboot', 'node-5: reboot']);
    const [a, b] = [await requestOn('node-2'), await requestOn('node-5')];
    assert.equal(a?.state, 'proposed');
    assert.ok(a?.campaign && a.campaign === b?.campaign, 'same reason → same campaign');
    const second = await runTick(deps);
    assert.deepEqual(second.proposed, []);
    assert.equal((await requestOn('node-2'))?.id, a.id, 'the request was not replaced');
    assert.equal(events.filter((e) => e.kind === 'proposed').length, 2);
  });

  it('a skew scan proposes the kubelet one minor behind as an upgrade to the apiserver version', async () => {
    const report = await runTick(deps, { skewScan: true });
    assert.deepEqual(report.proposed, ['node-4: upgrade v1.31.4']);
    assert.equal((await requestOn('node-4'))?.targetVersion, 'v1.31.4');
  });

  it('a paused cluster keeps an approved request waiting with the reason, then dispatches one Job', async () => {
    const id = (await requestOn('node-2'))!.id;
    await setPause(deps, true, alice, 'change freeze for the launch');
    const approved = await approveRequest(deps, id, alice);
    assert.equal(approved.request?.state, 'approved');
    await runTick(deps);
    const blocked = await requestOn('node-2');
    assert.equal(blocked?.state, 'approved');
    assert.ok(
      blocked?.blockedReasons?.some((r) => r.includes('paused by k8s:alice: change freeze')),
    );
    await setPause(deps, false, alice);
    const report = await runTick(deps);
    assert.deepEqual(report.dispatched, [`node-2: started ${jobName('node-2', id)}`]);
    assert.equal((await requestOn('node-2'))?.state, 'running');
    await runTick(deps);
    const jobs = await sim.batch.listNamespacedJob({ namespace: 'kubemaint' });
    assert.equal(jobs.items.length, 1, 'one Job per request, however many ticks');
  });

  it('with concurrency 1, a second approved request waits for the slot', async () => {
    const id = (await requestOn('node-5'))!.id;
    await approveRequest(deps, id, alice);
    await runTick(deps);
    const waiting = await requestOn('node-5');
    assert.equal(waiting?.state, 'approved');
    // Not who holds it: that changes with every hand-off, and would rewrite every waiting request.
    assert.deepEqual(waiting?.blockedReasons, ['all 1 slots in use']);
  });

  it('an executor that ends without issuing the host command fails the request and hands the node back', async () => {
    const result = await waitFor('node-2 request to fail', async () => {
      await runTick(deps);
      const request = await requestOn('node-2');
      return request?.state === 'failed' ? request : undefined;
    });
    assert.match(result.failure ?? '', /schedulable/);
    const node = await sim.core.readNode({ name: 'node-2' });
    assert.notEqual(node.spec?.unschedulable, true);
  });

  it('a reboot is proven by a new bootID: done, uncordoned, mark cleared, last-maintenance recorded', async () => {
    const node = await sim.core.readNode({ name: 'node-5' });
    const bootBefore = node.status?.nodeInfo?.bootID ?? '';
    const current = (await requestOn('node-5'))!;
    const issued = sim.clock.now().toISOString();
    // What the executor leaves behind once it issued the reboot: cordoned by us, bootID recorded.
    const verifying: MaintenanceRequest = {
      ...current,
      state: 'verifying',
      bootIdBefore: bootBefore,
      hostCommandIssuedAt: issued,
      cordonedByUs: true,
      wasCordoned: false,
    };
    await sim.core.patchNode(
      { name: 'node-5', body: { spec: { unschedulable: true } } },
      (await import('../../../src/adapters/kube/nodes.js')).MERGE_PATCH,
    );
    await requestReader(sim.kubeconfigPath).put(verifying);
    sim.admin.reboot('node-5');
    const done = await waitFor(
      'node-5 reboot to be proven',
      async () => {
        await runTick(deps);
        const request = await requestOn('node-5');
        return request?.state === 'done' ? request : undefined;
      },
      20_000,
    );
    assert.match(done.history.at(-1)?.note ?? '', /bootID .* → .*, Ready/);
    const after = await sim.core.readNode({ name: 'node-5' });
    assert.notEqual(after.status?.nodeInfo?.bootID, bootBefore);
    assert.notEqual(
      after.spec?.unschedulable,
      true,
      'kubemaint cordoned it, so kubemaint uncordons it',
    );
    assert.equal(after.metadata?.labels?.['kubemaint.io/reboot-required'], undefined);
    assert.match(
      after.metadata?.annotations?.['kubemaint.io/last-maintenance'] ?? '',
      /"action":"reboot"/,
    );
    assert.ok(events.some((e) => e.kind === 'done' && e.node === 'node-5'));
  });

  it('a typo in a node name gets a suggestion', async () => {
    await assert.rejects(
      requestMaintenance(deps, { node: 'node-55', action: 'reboot', by: alice }),
      (error: Error & { hint?: string }) =>
        error.message.includes('no node `node-55`') &&
        /did you mean `node-5`/.test(error.hint ?? ''),
    );
  });
});
