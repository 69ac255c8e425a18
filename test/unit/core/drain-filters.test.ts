import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DRAIN_MESSAGES,
  podRef,
  selectPodsToDrain,
  type DrainFilterOptions,
  type Pod,
} from '../../../src/core/drain-filters.js';
import { labelValue } from '../../../templates/label-value.js';

const NOW = new Date('2026-03-01T10:00:00Z');
const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7f9', controller: true };
const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', controller: true };

function pod(
  name: string,
  extra: Partial<Pod['metadata']> = {},
  rest: Omit<Pod, 'metadata'> = {},
): Pod {
  return { metadata: { name, namespace: 'apps', ownerReferences: [rs], ...extra }, ...rest };
}
const emptyDir = { spec: { volumes: [{ name: 'cache', emptyDir: {} }] } };
const hostPath = { spec: { volumes: [{ name: 'logs' }] } };
const dsPod = (name: string, rest: Omit<Pod, 'metadata'> = {}) =>
  pod(name, { namespace: 'kube-system', ownerReferences: [ds] }, rest);
const bare = (
  name: string,
  extra: Partial<Pod['metadata']> = {},
  rest: Omit<Pod, 'metadata'> = {},
) => pod(name, { ownerReferences: [], ...extra }, rest);
const base: DrainFilterOptions = { node: 'node-a' };
const LONG = `${'a'.repeat(62)}.${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(64)}`;

type Outcome = 'evict' | 'skip' | 'blocked';
function outcomeOf(p: Pod, options: DrainFilterOptions, now = NOW): Outcome {
  const r = selectPodsToDrain([p], options, now);
  if (r.evict.includes(p)) return 'evict';
  if (r.skip.some((s) => s.pod === p)) return 'skip';
  return 'blocked';
}

describe('selectPodsToDrain: one pod through the chain', () => {
  const cases: [why: string, p: Pod, options: DrainFilterOptions, want: Outcome][] = [
    ['a ReplicaSet pod is evicted', pod('web'), base, 'evict'],
    [
      'a DaemonSet pod stops the drain without --ignore-daemonsets',
      dsPod('fluentd-x'),
      base,
      'blocked',
    ],
    [
      'a DaemonSet pod is left in place with it',
      dsPod('fluentd-x'),
      { ...base, ignoreDaemonSets: true },
      'skip',
    ],
    [
      'a finished DaemonSet pod is evicted',
      dsPod('f', { status: { phase: 'Succeeded' } }),
      base,
      'evict',
    ],
    [
      'a DaemonSet ref of another group is not a DaemonSet (kubectl HEAD)',
      pod('x', { ownerReferences: [{ ...ds, apiVersion: 'extensions/v1beta1' }] }),
      base,
      'evict',
    ],
    [
      'a mirror pod is skipped',
      pod('etcd', { annotations: { 'kubernetes.io/config.mirror': 'abc' } }),
      base,
      'skip',
    ],
    [
      'a mirror pod is skipped even with --force and finished',
      bare(
        'etcd',
        { annotations: { 'kubernetes.io/config.mirror': 'abc' } },
        { status: { phase: 'Failed' } },
      ),
      { ...base, force: true },
      'skip',
    ],
    ['an emptyDir pod stops the drain', pod('cache', {}, emptyDir), base, 'blocked'],
    [
      'an emptyDir pod is evicted with --delete-emptydir-data',
      pod('cache', {}, emptyDir),
      { ...base, deleteEmptyDirData: true },
      'evict',
    ],
    ['hostPath is not local storage', pod('logs', {}, hostPath), base, 'evict'],
    [
      'a finished emptyDir pod is evicted',
      pod('c', {}, { ...emptyDir, status: { phase: 'Failed' } }),
      base,
      'evict',
    ],
    ['an unmanaged pod stops the drain', bare('debug'), base, 'blocked'],
    ['an unmanaged pod is evicted with --force', bare('debug'), { ...base, force: true }, 'evict'],
    [
      'a completed unmanaged pod is evicted without checks',
      bare('done', {}, { status: { phase: 'Succeeded' } }),
      base,
      'evict',
    ],
    [
      'an owner that is not the controller does not count',
      pod('x', { ownerReferences: [{ ...rs, controller: false }] }),
      base,
      'blocked',
    ],
    [
      'a terminating pod is evicted again and waited for by default (kubectl)',
      pod('t', { deletionTimestamp: '2026-03-01T09:00:00Z' }),
      base,
      'evict',
    ],
    [
      'a pod deleted longer ago than skip-wait-for-delete-timeout is skipped',
      pod('t', { deletionTimestamp: '2026-03-01T09:58:59Z' }),
      { ...base, skipWaitForDeleteTimeoutSeconds: 60 },
      'skip',
    ],
    [
      'a pod deleted exactly that long ago is not (strictly older)',
      pod('t', { deletionTimestamp: '2026-03-01T09:59:00Z' }),
      { ...base, skipWaitForDeleteTimeoutSeconds: 60 },
      'evict',
    ],
    [
      'our executor pod on this node is never evicted',
      bare('kubemaint-r-1a2b3c-node-a-x', {
        labels: { 'app.kubernetes.io/managed-by': 'kubemaint', 'kubemaint.io/node': 'node-a' },
      }),
      base,
      'skip',
    ],
    [
      'our executor pod on a node whose 253-character name its label can only hash (the annotation has it)',
      bare('kubemaint-r-1a2b3c-long-x', {
        labels: {
          'app.kubernetes.io/managed-by': 'kubemaint',
          'kubemaint.io/node': labelValue(LONG),
        },
        annotations: { 'kubemaint.io/node': LONG },
      }),
      { ...base, node: LONG },
      'skip',
    ],
    [
      'an executor annotation for another node does not protect a pod, whatever its label',
      pod('y', {
        labels: { 'app.kubernetes.io/managed-by': 'kubemaint', 'kubemaint.io/node': 'node-a' },
        annotations: { 'kubemaint.io/node': 'node-a.other' },
      }),
      base,
      'evict',
    ],
    [
      'an executor label for another node does not protect a pod',
      pod('x', {
        labels: { 'app.kubernetes.io/managed-by': 'kubemaint', 'kubemaint.io/node': 'node-b' },
      }),
      base,
      'evict',
    ],
    [
      'our executor pod found by its own name',
      bare('exec-1', { namespace: 'kubemaint' }),
      { ...base, selfPod: 'kubemaint/exec-1' },
      'skip',
    ],
    [
      'selfPod without a namespace protects that pod only',
      pod('web-2'),
      { ...base, selfPod: 'exec-1' },
      'evict',
    ],
    [
      "a pod of another tool carrying kubemaint's node label is drained like any other",
      pod('z', { labels: { 'kubemaint.io/node': 'node-a' } }),
      base,
      'evict',
    ],
    [
      'a pod whose ownerReferences the API left out declares no controller',
      { metadata: { name: 'solo', namespace: 'apps' } },
      base,
      'blocked',
    ],
    [
      'an orphaned DaemonSet pod without a namespace is looked up in default',
      { metadata: { name: 'o', ownerReferences: [ds] } },
      {
        ...base,
        force: true,
        ignoreDaemonSets: true,
        daemonSets: { 'default/fluentd': 'not-found' },
      },
      'evict',
    ],
    [
      'a same-name pod in another namespace is not ours',
      pod('exec-1'),
      { ...base, selfPod: 'kubemaint/exec-1' },
      'evict',
    ],
    [
      'selfPod without a namespace matches by name',
      pod('exec-1'),
      { ...base, selfPod: 'exec-1' },
      'skip',
    ],
    [
      'a pod outside the pod selector is left alone',
      bare('x', { labels: { tier: 'db' } }),
      { ...base, podSelector: 'tier!=db' },
      'skip',
    ],
    [
      'a pod inside the pod selector is filtered normally',
      bare('x', { labels: { tier: 'web' } }),
      { ...base, podSelector: 'tier!=db' },
      'blocked',
    ],
    [
      'an orphaned DaemonSet pod stops the drain',
      dsPod('o'),
      { ...base, daemonSets: { 'kube-system/fluentd': 'not-found' } },
      'blocked',
    ],
    [
      'an orphaned DaemonSet pod is evicted with --force',
      dsPod('o'),
      { ...base, force: true, daemonSets: { 'kube-system/fluentd': 'not-found' } },
      'evict',
    ],
    [
      'a DaemonSet lookup error stops the drain even with --force',
      dsPod('o'),
      {
        ...base,
        force: true,
        ignoreDaemonSets: true,
        daemonSets: { 'kube-system/fluentd': { error: 'forbidden' } },
      },
      'blocked',
    ],
  ];
  for (const [why, p, options, want] of cases) {
    it(why, () => assert.equal(outcomeOf(p, options), want));
  }
});

describe('selectPodsToDrain: kubectl messages', () => {
  it('groups errors by message, naming each pod as namespace/name', () => {
    const r = selectPodsToDrain(
      [bare('a'), dsPod('f1'), bare('b'), pod('c', {}, emptyDir)],
      base,
      NOW,
    );
    assert.deepEqual(r.errors, [
      `cannot delete ${DRAIN_MESSAGES.unmanagedFatal}: apps/a, apps/b`,
      `cannot delete ${DRAIN_MESSAGES.daemonSetFatal}: kube-system/f1`,
      `cannot delete ${DRAIN_MESSAGES.localStorageFatal}: apps/c`,
    ]);
    assert.equal(r.evict.length, 0);
    assert.equal(r.blocked.length, 4);
  });

  it('uses the exact kubectl texts', () => {
    assert.equal(
      DRAIN_MESSAGES.daemonSetFatal,
      'DaemonSet-managed Pods (use --ignore-daemonsets to ignore)',
    );
    assert.equal(
      DRAIN_MESSAGES.localStorageFatal,
      'Pods with local storage (use --delete-emptydir-data to override)',
    );
    assert.equal(
      DRAIN_MESSAGES.unmanagedFatal,
      'Pods that declare no controller (use --force to override)',
    );
  });

  it("groups warnings and keeps an earlier filter's warning (kubectl loses it)", () => {
    const options = { ...base, ignoreDaemonSets: true, deleteEmptyDirData: true, force: true };
    const r = selectPodsToDrain(
      [dsPod('f1'), pod('cache', {}, emptyDir), bare('x', {}, emptyDir), dsPod('f2')],
      options,
      NOW,
    );
    assert.deepEqual(r.warnings, [
      'ignoring DaemonSet-managed Pods: kube-system/f1, kube-system/f2',
      'deleting Pods with local storage: apps/cache, apps/x',
      'deleting Pods that declare no controller: apps/x',
    ]);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.evict.map(podRef), ['apps/cache', 'apps/x']);
  });

  it('names an orphaned DaemonSet like the API NotFound error', () => {
    const r = selectPodsToDrain(
      [dsPod('o')],
      { ...base, force: true, daemonSets: { 'kube-system/fluentd': 'not-found' } },
      NOW,
    );
    assert.deepEqual(r.warnings, ['daemonsets.apps "fluentd" not found: kube-system/o']);
  });

  it('stops for an orphaned DaemonSet without --force, or a failed lookup, naming why', () => {
    const orphan = selectPodsToDrain(
      [dsPod('o')],
      { ...base, daemonSets: { 'kube-system/fluentd': 'not-found' } },
      NOW,
    );
    assert.deepEqual(orphan.errors, [
      'cannot delete daemonsets.apps "fluentd" not found: kube-system/o',
    ]);
    const failed = selectPodsToDrain(
      [dsPod('o')],
      { ...base, force: true, daemonSets: { 'kube-system/fluentd': { error: 'forbidden' } } },
      NOW,
    );
    assert.deepEqual(failed.errors, ['cannot delete forbidden: kube-system/o']);
    assert.deepEqual(
      failed.blocked.map((b) => [podRef(b.pod), b.reason]),
      [['kube-system/o', 'forbidden']],
    );
  });

  it('names a pod without a namespace default/<name>, as kubectl does', () => {
    const solo: Pod = { metadata: { name: 'solo', ownerReferences: [] } };
    assert.equal(podRef(solo), 'default/solo');
    assert.deepEqual(selectPodsToDrain([solo], base, NOW).errors, [
      `cannot delete ${DRAIN_MESSAGES.unmanagedFatal}: default/solo`,
    ]);
  });

  it('rejects an invalid pod selector before looking at any pod', () => {
    const r = selectPodsToDrain([pod('web')], { ...base, podSelector: 'a in (b' }, NOW);
    assert.deepEqual(
      { ...r, errors: [] },
      {
        evict: [],
        skip: [],
        blocked: [],
        warnings: [],
        errors: [],
      },
    );
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0]!, /^--pod-selector=a in \(b must be a valid label selector/);
  });

  it('explains each skip', () => {
    const r = selectPodsToDrain(
      [
        pod('etcd', { annotations: { 'kubernetes.io/config.mirror': 'x' } }),
        dsPod('f'),
        pod('gone', { deletionTimestamp: '2026-03-01T09:58:00Z' }),
        pod('db', { labels: { tier: 'db' } }),
        pod('exec-1'),
      ],
      {
        ...base,
        ignoreDaemonSets: true,
        skipWaitForDeleteTimeoutSeconds: 60,
        podSelector: 'tier!=db',
        selfPod: 'exec-1',
      },
      NOW,
    );
    assert.deepEqual(
      r.skip.map((s) => s.reason),
      [
        'mirror pod (a static pod the kubelet owns; it cannot be evicted)',
        'ignoring DaemonSet-managed Pods',
        'DeletionTimestamp older than 60 seconds',
        'does not match the pod selector "tier!=db"',
        'the kubemaint executor itself (never evicted by its own drain)',
      ],
    );
  });
});

describe('selectPodsToDrain: properties', () => {
  const arbPod = fc
    .record({
      name: fc.stringMatching(/^[a-z]{1,6}$/),
      owner: fc.constantFrom<'rs' | 'ds' | 'none'>('rs', 'ds', 'none'),
      phase: fc.constantFrom('Running', 'Succeeded', 'Failed', 'Pending'),
      mirror: fc.boolean(),
      emptyDir: fc.boolean(),
      deletedSecondsAgo: fc.option(fc.integer({ min: 0, max: 600 })),
      ours: fc.boolean(),
    })
    .map((g): Pod => ({
      metadata: {
        name: g.name,
        namespace: 'ns',
        ownerReferences: g.owner === 'rs' ? [rs] : g.owner === 'ds' ? [ds] : [],
        ...(g.mirror ? { annotations: { 'kubernetes.io/config.mirror': 'x' } } : {}),
        ...(g.ours
          ? {
              labels: {
                'app.kubernetes.io/managed-by': 'kubemaint',
                'kubemaint.io/node': 'node-a',
              },
            }
          : {}),
        ...(g.deletedSecondsAgo === null
          ? {}
          : {
              deletionTimestamp: new Date(NOW.getTime() - g.deletedSecondsAgo * 1000).toISOString(),
            }),
      },
      spec: g.emptyDir ? emptyDir.spec : {},
      status: { phase: g.phase },
    }));
  const arbOptions = fc.record({
    force: fc.boolean(),
    ignoreDaemonSets: fc.boolean(),
    deleteEmptyDirData: fc.boolean(),
    skipWaitForDeleteTimeoutSeconds: fc.integer({ min: 0, max: 300 }),
  });

  it('puts every pod in exactly one bucket, never evicts our own or mirror pods, errors iff blocked', () => {
    fc.assert(
      fc.property(fc.array(arbPod, { maxLength: 12 }), arbOptions, (pods, opts) => {
        const r = selectPodsToDrain(pods, { ...base, ...opts }, NOW);
        assert.equal(r.evict.length + r.skip.length + r.blocked.length, pods.length);
        for (const p of r.evict) {
          assert.notEqual(p.metadata.labels?.['kubemaint.io/node'], 'node-a');
          assert.equal(p.metadata.annotations?.['kubernetes.io/config.mirror'], undefined);
        }
        assert.equal(r.errors.length > 0, r.blocked.length > 0);
      }),
    );
  });
});
