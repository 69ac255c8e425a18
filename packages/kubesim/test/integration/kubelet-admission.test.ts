/**
 * The simulated kubelets admit pods as real ones do: a pod bound by nodeName to a node that cannot
 * take it ends Failed with the kubelet's reason and a Warning Event, a critical pod is admitted by
 * preempting others (Failed, Preempting), and the scheduler counts the same requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { R } from '../../src/index.js';
import { startTestSim, waitFor, type TestSim } from '../support.js';

const NODE = 'small-1';
const NS = 'default';

describe('kubelet admission and critical-pod preemption on the sim', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ scenario: 'empty' });
    sim.store.create(R.nodes, {
      metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE } },
      spec: {},
      status: { allocatable: { pods: '3', cpu: '2', memory: '4Gi' } },
    });
  });
  after(async () => sim.close());

  const createPod = (
    name: string,
    extra: { nodeName?: string; cpu?: string; priorityClassName?: string } = {},
  ) =>
    sim.core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name },
        spec: {
          ...(extra.nodeName ? { nodeName: extra.nodeName } : {}),
          ...(extra.priorityClassName ? { priorityClassName: extra.priorityClassName } : {}),
          containers: [
            {
              name: 'app',
              image: 'registry.example.com/app:1',
              ...(extra.cpu ? { resources: { requests: { cpu: extra.cpu } } } : {}),
            },
          ],
        },
      },
    });
  const read = (name: string): Promise<V1Pod> =>
    sim.core.readNamespacedPod({ namespace: NS, name });
  const phaseOf = async (name: string, phase: string): Promise<V1Pod> =>
    waitFor(`${name} ${phase}`, async () => {
      const pod = await read(name);
      return pod.status?.phase === phase ? pod : undefined;
    });
  const eventsOf = async (name: string): Promise<CoreV1Event[]> =>
    (
      await sim.core.listNamespacedEvent({
        namespace: NS,
        fieldSelector: `involvedObject.name=${name}`,
      })
    ).items;

  it('turns away a pod over the CPU left: OutOfcpu, Failed, a Warning Event', async () => {
    await createPod('cpu-1', { nodeName: NODE, cpu: '1500m' });
    await phaseOf('cpu-1', 'Running');
    await createPod('cpu-2', { nodeName: NODE, cpu: '1' });
    const pod = await phaseOf('cpu-2', 'Failed');
    assert.equal(pod.status?.reason, 'OutOfcpu');
    assert.equal(
      pod.status?.message,
      "Pod was rejected: Node didn't have enough resource: cpu, requested: 1000, used: 1500, capacity: 2000",
    );
    assert.equal(pod.status?.containerStatuses, undefined, 'no container ever started');
    const event = (await eventsOf('cpu-2')).find((e) => e.reason === 'OutOfcpu');
    assert.equal(event?.type, 'Warning');
    assert.equal(event?.source?.component, 'kubelet');
    assert.equal(
      event?.message,
      "Node didn't have enough resource: cpu, requested: 1000, used: 1500, capacity: 2000",
    );
  });

  it('schedules by the same requests: a pod that fits nowhere stays Pending', async () => {
    await createPod('cpu-unbound', { cpu: '1' });
    const message = await waitFor('FailedScheduling', async () => {
      const pod = await read('cpu-unbound');
      return pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message;
    });
    assert.equal(message, '0/1 nodes are available: 1 Insufficient cpu.');
    await sim.core.deleteNamespacedPod({ namespace: NS, name: 'cpu-unbound' });
  });

  it('turns away a pod beyond the node pod count: OutOfpods', async () => {
    await createPod('fill-1', { nodeName: NODE });
    await createPod('fill-2', { nodeName: NODE });
    await phaseOf('fill-2', 'Running');
    await createPod('one-too-many', { nodeName: NODE });
    const pod = await phaseOf('one-too-many', 'Failed');
    assert.equal(pod.status?.reason, 'OutOfpods');
    assert.equal(
      pod.status?.message,
      "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
    );
  });

  it('admits a system-node-critical pod on the full node by preempting one pod', async () => {
    await createPod('critical', { nodeName: NODE, priorityClassName: 'system-node-critical' });
    const critical = await phaseOf('critical', 'Running');
    assert.equal(critical.spec?.priority, 2_000_001_000);
    const victims = (await sim.core.listNamespacedPod({ namespace: NS })).items.filter(
      (p) => p.status?.reason === 'Preempting',
    );
    // BestEffort pods go first: one of the two fill pods, not cpu-1 (Burstable).
    assert.equal(victims.length, 1, victims.map((p) => p.metadata?.name).join(','));
    const victim = victims[0]!;
    assert.match(victim.metadata?.name ?? '', /^fill-/);
    assert.equal(victim.status?.phase, 'Failed');
    assert.equal(victim.status?.message, 'Preempted in order to admit critical pod');
    const disruption = victim.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    assert.equal(disruption?.reason, 'TerminationByKubelet');
    assert.equal(
      disruption?.message,
      'Pod was preempted by Kubelet to accommodate a critical pod.',
    );
    const events = await eventsOf(victim.metadata?.name ?? '');
    const preempting = events.find((e) => e.reason === 'Preempting');
    assert.equal(preempting?.type, 'Warning');
    assert.equal(preempting?.message, 'Preempted in order to admit critical pod');
    assert.ok(
      events.some((e) => e.reason === 'Killing'),
      'its container was stopped',
    );
  });
});
