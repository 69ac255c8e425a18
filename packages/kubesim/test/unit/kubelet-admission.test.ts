import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitPod } from '../../src/kubelet-admission.js';
import { podsToPreempt } from '../../src/kubelet-preemption.js';
import type { KObject } from '../../src/types.js';

const node = (
  allocatable: Record<string, string>,
  extra: { labels?: Record<string, string>; taints?: unknown[] } = {},
): KObject => ({
  metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1', ...extra.labels } },
  spec: extra.taints ? { taints: extra.taints } : {},
  status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110', ...allocatable } },
});

let serial = 0;
const pod = (
  requests: Record<string, string> = {},
  extra: {
    priority?: number;
    name?: string;
    limits?: Record<string, string>;
    spec?: Record<string, unknown>;
  } = {},
): KObject => ({
  metadata: { name: extra.name ?? `p${++serial}`, uid: `uid-${++serial}` },
  spec: {
    nodeName: 'n1',
    priority: extra.priority ?? 0,
    containers: [
      {
        name: 'c',
        image: 'x',
        resources: { requests, ...(extra.limits ? { limits: extra.limits } : {}) },
      },
    ],
    ...extra.spec,
  },
});
const CRITICAL = 2_000_001_000;
const names = (pods: readonly KObject[]) => pods.map((p) => p.metadata.name).sort();

describe('kubelet admission (lifecycle/predicate.go)', () => {
  it('admits a pod that fits', () => {
    assert.deepEqual(admitPod(pod({ cpu: '1' }), node({}), [pod({ cpu: '3' })]), {
      admit: true,
      preempt: [],
    });
  });

  const rejections: [string, KObject, KObject, KObject[], string, string][] = [
    [
      'no pod slot left: OutOfpods',
      pod(),
      node({ pods: '2' }),
      [pod(), pod()],
      'OutOfpods',
      "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
    ],
    [
      'CPU requests beyond allocatable: OutOfcpu in millicores',
      pod({ cpu: '500m' }),
      node({}),
      [pod({ cpu: '3' }), pod({ cpu: '700m' })],
      'OutOfcpu',
      "Node didn't have enough resource: cpu, requested: 500, used: 3700, capacity: 4000",
    ],
    [
      'memory requests beyond allocatable: OutOfmemory in bytes',
      pod({ memory: '1Gi' }),
      node({ memory: '2Gi' }),
      [pod({ memory: '1536Mi' })],
      'OutOfmemory',
      "Node didn't have enough resource: memory, requested: 1073741824, used: 1610612736, capacity: 2147483648",
    ],
    [
      'pods before cpu: the first reason is the one given',
      pod({ cpu: '4' }),
      node({ pods: '1' }),
      [pod({ cpu: '1' })],
      'OutOfpods',
      "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1",
    ],
    [
      'a node selector the node does not match: NodeAffinity',
      pod({}, { spec: { nodeSelector: { pool: 'gpu' } } }),
      node({}),
      [],
      'NodeAffinity',
      "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
    ],
    [
      'an untolerated NoExecute taint: TaintToleration',
      pod(),
      node({}, { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] }),
      [],
      'TaintToleration',
      "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate",
    ],
    [
      'a pod labelled for another OS',
      { ...pod(), metadata: { name: 'w', labels: { 'kubernetes.io/os': 'windows' } } },
      node({}),
      [],
      'PodOSSelectorNodeLabelDoesNotMatch',
      "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    ],
  ];
  for (const [why, p, n, active, reason, message] of rejections) {
    it(`rejects ${why}`, () => {
      assert.deepEqual(admitPod(p, n, active), { admit: false, reason, message });
    });
  }

  it('ignores NoSchedule taints and cordons: nodeName bypasses them, as on a real node', () => {
    const cordoned = node(
      {},
      { taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] },
    );
    assert.equal(admitPod(pod(), cordoned, []).admit, true);
  });

  it('checks cpu and memory only when the pod requests them', () => {
    assert.equal(admitPod(pod(), node({ cpu: '1' }), [pod({ cpu: '1' })]).admit, true);
  });

  it('admits a critical pod short of resources by preempting others', () => {
    const victim = pod({ cpu: '2' }, { name: 'victim' });
    const result = admitPod(pod({ cpu: '2' }, { priority: CRITICAL }), node({}), [
      victim,
      pod({ cpu: '1' }, { name: 'stays', priority: CRITICAL }),
    ]);
    assert.equal(result.admit, true);
    assert.deepEqual(result.admit && names(result.preempt), ['victim']);
  });

  it('rejects a critical pod for what preemption cannot fix', () => {
    const result = admitPod(
      pod({ cpu: '8' }, { priority: CRITICAL, spec: { nodeSelector: { pool: 'x' } } }),
      node({}),
      [pod({ cpu: '4' })],
    );
    assert.equal(result.admit, false);
    assert.equal(!result.admit && result.reason, 'NodeAffinity');
  });

  it('rejects a critical pod when no set of pods would free enough', () => {
    const result = admitPod(pod({ cpu: '5' }, { priority: CRITICAL }), node({}), [
      pod({ cpu: '1' }),
    ]);
    assert.deepEqual(result, {
      admit: false,
      reason: 'UnexpectedAdmissionError',
      message:
        'Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: 1000), ]',
    });
  });

  it('lets an ordinary pod of high priority preempt nothing', () => {
    const result = admitPod(pod({}, { priority: 1_000_000_000 }), node({ pods: '1' }), [pod()]);
    assert.equal(result.admit, false);
  });
});

describe("the kubelet's choice of victims (preemption.go)", () => {
  const critical = pod({}, { priority: CRITICAL });
  const guaranteed = (name: string, cpu: string) =>
    pod({ cpu, memory: '1Gi' }, { name, limits: { cpu, memory: '1Gi' } });

  it('takes BestEffort pods before Burstable and Guaranteed ones', () => {
    const found = podsToPreempt(
      critical,
      [
        guaranteed('g', '1'),
        pod({ cpu: '1' }, { name: 'burstable' }),
        pod({}, { name: 'besteffort' }),
      ],
      [{ resource: 'pods', quantity: 1 }],
    );
    assert.deepEqual('victims' in found && names(found.victims), ['besteffort']);
  });

  it('takes the fewest pods: one big pod rather than several small ones', () => {
    const found = podsToPreempt(
      critical,
      [
        pod({ cpu: '500m' }, { name: 'small-1' }),
        pod({ cpu: '500m' }, { name: 'small-2' }),
        pod({ cpu: '2' }, { name: 'big' }),
      ],
      [{ resource: 'cpu', quantity: 1000 }],
    );
    assert.deepEqual('victims' in found && names(found.victims), ['big']);
  });

  it('takes the smaller of two pods that each cover the need', () => {
    const found = podsToPreempt(
      critical,
      [pod({ cpu: '3' }, { name: 'larger' }), pod({ cpu: '2' }, { name: 'smaller' })],
      [{ resource: 'cpu', quantity: 1000 }],
    );
    assert.deepEqual('victims' in found && names(found.victims), ['smaller']);
  });

  it('reaches into Guaranteed pods only for what the others cannot free', () => {
    const found = podsToPreempt(
      critical,
      [
        pod({ cpu: '1' }, { name: 'burstable' }),
        guaranteed('g-big', '2'),
        guaranteed('g-small', '1'),
      ],
      [{ resource: 'cpu', quantity: 2000 }],
    );
    assert.deepEqual('victims' in found && names(found.victims), ['burstable', 'g-small']);
  });

  it('never preempts a critical pod, and a lower priority only for a higher one', () => {
    const found = podsToPreempt(
      critical,
      [pod({}, { priority: CRITICAL })],
      [{ resource: 'pods', quantity: 1 }],
    );
    assert.deepEqual(found, {
      error: 'no set of running pods found to reclaim resources: [(res: pods, q: 1), ]',
    });
  });
});
