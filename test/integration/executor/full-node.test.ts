/**
 * The executor Job on a full node (issue 17): its pod is bound by nodeName, so no scheduler finds it
 * room; the node's kubelet admits it or turns it away. With the config's default priority class
 * (system-node-critical) and resources the kubelet preempts a pod to admit it, and the Job drains
 * and reboots the node; without a class the same pod is rejected (OutOfpods) and the Job fails,
 * which is what a real full node does to a reboot that has no priority class.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createJob } from '../../../src/adapters/kube/jobs.js';
import { createKubeClient, loadKubeConfig } from '../../../src/adapters/kube/client.js';
import { parseConfig } from '../../../src/config/parse.js';
import type { Sim } from '@kubemaint/kubesim';
import { R, type KObject } from '@kubemaint/kubesim';
import {
  bootId,
  fleet,
  isReady,
  jobOutcome,
  nodeNames,
  podsOn,
  putRequest,
  reboots,
  simExecutorJob,
  until,
} from '../../support/executor-fleet.js';

let sim: Sim;
before(async () => {
  sim = await fleet({ nodes: 2, podsPerNode: 12 });
});
after(() => sim.stop());

const phase = (p: KObject) => (p.status as { phase?: string } | undefined)?.phase;
const active = (node: string) =>
  podsOn(sim, node).filter((p) => phase(p) !== 'Succeeded' && phase(p) !== 'Failed');

/** Lowers the node's allocatable pod count to the pods it runs: not one more fits. */
function fill(node: string): number {
  const count = active(node).length;
  sim.store.mutate(
    R.nodes,
    undefined,
    node,
    (n) => {
      const status = (n.status ??= {}) as { allocatable?: Record<string, string> };
      status.allocatable = { ...status.allocatable, pods: String(count) };
    },
    { subresource: 'status' },
  );
  return count;
}

const defaults = (() => {
  const parsed = parseConfig('', 'k.yaml');
  assert.ok(parsed.ok);
  return parsed.config.executor;
})();

async function runJob(node: string, requestId: string, priorityClassName: string) {
  const manifest = simExecutorJob(node, requestId, {
    resources: defaults.resources,
    ...(priorityClassName ? { priorityClassName } : {}),
  });
  const client = createKubeClient(loadKubeConfig(sim.kubeconfigPath));
  assert.equal(await createJob(client, manifest), true);
  return manifest.metadata!.name!;
}

const jobPod = (node: string, job: string) =>
  podsOn(sim, node).find((p) => p.metadata.name?.startsWith(job));

describe('the executor Job on a full node', () => {
  it('is admitted with the default system-node-critical by preempting a pod, then drains and reboots the node', async () => {
    assert.equal(defaults.priorityClassName, 'system-node-critical');
    const node = nodeNames(sim)[0]!;
    assert.ok(fill(node) > 10);
    const bootBefore = bootId(sim, node);
    const request = await putRequest(sim, node, { id: 'r-full1' });
    const job = await runJob(node, request.id, defaults.priorityClassName);

    const pod = await until('the executor pod admitted and running', () => {
      const found = jobPod(node, job);
      return found && phase(found) !== 'Pending' ? found : undefined;
    });
    assert.notEqual(phase(pod), 'Failed', JSON.stringify(pod.status));
    const preempted = podsOn(sim, node).filter(
      (p) => (p.status as { reason?: string } | undefined)?.reason === 'Preempting',
    );
    assert.equal(preempted.length, 1, 'one pod made room (the kubelet takes the fewest)');

    assert.equal(await until('the Job to finish', () => jobOutcome(sim, job), 90_000), 'Complete');
    await until(
      'a new bootID and Ready',
      () => bootId(sim, node) !== bootBefore && isReady(sim, node),
      30_000,
    );
    assert.equal(reboots(sim, node).length, 1);
  });

  it('is turned away (OutOfpods) without a priority class, and the Job fails', async () => {
    const node = nodeNames(sim)[1]!;
    const count = fill(node);
    const request = await putRequest(sim, node, { id: 'r-full2' });
    const job = await runJob(node, request.id, '');

    const pod = await until('the executor pod rejected', () => {
      const found = jobPod(node, job);
      return found && phase(found) === 'Failed' ? found : undefined;
    });
    const status = pod.status as { reason?: string; message?: string };
    assert.equal(status.reason, 'OutOfpods');
    assert.equal(
      status.message,
      `Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: ${count}, capacity: ${count}`,
    );
    assert.equal(await until('the Job to fail', () => jobOutcome(sim, job), 30_000), 'Failed');
    assert.equal(reboots(sim, node).length, 0);
  });
});
