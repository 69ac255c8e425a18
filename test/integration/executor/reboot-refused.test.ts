/**
 * A reboot systemd refuses is told apart from a slow one (issue 33): a block inhibitor held on a
 * simulated node's host (as `systemd-inhibit --mode=block` holds one) makes logind refuse the
 * executor's `nsenter … -- systemctl reboot` in systemd's own words; the executor fails the request
 * with that reason at once, gives the node back (kubemaint cordoned it) and reboots nothing. Without
 * the lock the same Job reboots the node.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createJob } from '../../../src/adapters/kube/jobs.js';
import { createKubeClient, loadKubeConfig } from '../../../src/adapters/kube/client.js';
import type { Sim } from '@kubemaint/kubesim';
import {
  bootId,
  fleet,
  getNode,
  jobOutcome,
  nodeNames,
  putRequest,
  reboots,
  requestOf,
  simExecutorJob,
  simSettings,
  until,
} from '../../support/executor-fleet.js';

let sim: Sim;
before(async () => {
  sim = await fleet({ nodes: 2, podsPerNode: 3 });
});
after(() => sim.stop());

/** The executor as it runs on a real node: systemctl reboot through nsenter into the host. */
const REAL_REBOOT = JSON.stringify(
  simSettings({
    hostPrefix: ['nsenter', '-m/proc/1/ns/mnt', '--'],
    reboot: { method: 'command', command: ['systemctl', 'reboot'] },
  }),
);

async function runJob(node: string, requestId: string): Promise<string> {
  const manifest = simExecutorJob(node, requestId, { settingsJson: REAL_REBOOT });
  const client = createKubeClient(loadKubeConfig(sim.kubeconfigPath));
  assert.equal(await createJob(client, manifest), true);
  return manifest.metadata!.name!;
}

describe('a reboot refused by systemd', () => {
  it('fails the request with the inhibitor as the reason, uncordons, and reboots nothing', async () => {
    const node = nodeNames(sim)[0]!;
    const release = sim.admin.inhibit(node, {
      who: 'backup.sh',
      why: 'nightly backup to s3',
      what: 'shutdown:sleep',
      mode: 'block',
    });
    const started = Date.now();
    const request = await putRequest(sim, node, { id: 'r-inhib1' });
    const job = await runJob(node, request.id);
    assert.equal(await until('the Job to end', () => jobOutcome(sim, job), 90_000), 'Failed');
    const ended = await until('the request failed', () => {
      const r = requestOf(sim, node);
      return r?.state === 'failed' ? r : undefined;
    });
    assert.match(
      ended.failure ?? '',
      /^systemd refused the reboot: a block inhibitor on shutdown is held .*: Failed to reboot system via logind: Operation denied due to active block inhibitor\. node uncordoned$/,
    );
    assert.equal(ended.history.at(-1)?.note, 'reboot refused by systemd');
    assert.notEqual(getNode(sim, node).spec?.['unschedulable'], true, 'given back');
    assert.equal(reboots(sim, node).length, 0);
    // Told at once, not after a reboot timeout (verify.timeout is 15 min of sim time).
    assert.ok(Date.now() - started < 90_000);
    release();
  });

  it("a delay lock (the kubelet's graceful shutdown) only delays it: the node reboots", async () => {
    const node = nodeNames(sim)[1]!;
    const release = sim.admin.inhibit(node, {
      who: 'kubelet',
      why: 'Kubelet needs time to handle node shutdown',
      what: 'shutdown',
      mode: 'delay',
    });
    const before = bootId(sim, node);
    const request = await putRequest(sim, node, { id: 'r-inhib2' });
    const job = await runJob(node, request.id);
    assert.equal(await until('the Job to end', () => jobOutcome(sim, job), 90_000), 'Complete');
    assert.equal(reboots(sim, node).length, 1);
    await until('a new bootID', () => bootId(sim, node) !== before, 60_000);
    release();
  });
});
