/**
 * StatefulSet revisions, what `kubectl rollout status/history/undo sts/x` read: each template a
 * ControllerRevision, pods labelled `controller-revision-hash` with the revision's *name*, the status'
 * `currentRevision` and `updateRevision`, and a template change replacing the pods from the highest
 * ordinal down. The pods run on a fake node of the case's own and stop at once (grace 0); the case
 * marks each new pod Running as its kubelet would.
 */
import assert from 'node:assert/strict';
import { eventually, type Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { fakeNode, field, markRunning, meta, podPath, STRATEGIC } from '../fixtures.js';

type Obj = Record<string, unknown>;
const HASH = 'controller-revision-hash';

const template = (node: string, image: string) => ({
  metadata: { labels: { app: 'db' } },
  spec: {
    nodeSelector: { 'kubernetes.io/hostname': node },
    terminationGracePeriodSeconds: 0,
    containers: [{ name: 'main', image }],
  },
});

/**
 * Plays the kubelet until the StatefulSet's status holds `done`: every pod bound and not yet Ready
 * is marked Running. Returns the StatefulSet, its pods, and the order pods were first seen in.
 */
async function settle(b: Backend, ns: string, done: (sts: Obj, pods: Obj[]) => boolean) {
  const seen: string[] = [];
  const result = await eventually(
    'the StatefulSet settled',
    async () => {
      const pods = ((await b.request('GET', `${podPath(ns)}?labelSelector=app%3Ddb`)).json[
        'items'
      ] ?? []) as Obj[];
      for (const pod of pods) {
        const key = `${String(meta(pod)['name'])}@${String(meta(pod)['uid'])}`;
        if (!seen.includes(key)) seen.push(key);
        const ready = ((field(pod, 'status', 'conditions') ?? []) as Obj[]).some(
          (c) => c['type'] === 'Ready' && c['status'] === 'True',
        );
        if (!ready && field(pod, 'spec', 'nodeName') && !meta(pod)['deletionTimestamp'])
          await markRunning(b, ns, String(meta(pod)['name']));
      }
      const sts = await b.request('GET', `/apis/apps/v1/namespaces/${ns}/statefulsets/db`);
      return done(sts.json, pods) ? { sts: sts.json, pods } : undefined;
    },
    50_000,
  );
  return { ...result, seen };
}

const atRevision = (generation: number) => (sts: Obj, pods: Obj[]) => {
  const status = (sts['status'] ?? {}) as Obj;
  return (
    status['observedGeneration'] === generation &&
    status['readyReplicas'] === 3 &&
    status['updatedReplicas'] === 3 &&
    status['currentRevision'] === status['updateRevision'] &&
    pods.length === 3 &&
    pods.every(
      (p) =>
        (meta(p)['labels'] as Obj)[HASH] === status['updateRevision'] &&
        !meta(p)['deletionTimestamp'],
    )
  );
};

export const statefulSetRolloutCases: CaseGroup = {
  name: 'StatefulSet rollouts',
  cases: [
    {
      id: 'pods carry their revision name; a template change replaces them from the highest ordinal',
      timeoutMs: 90_000,
      async run(b) {
        const ns = await b.namespace();
        const node = await fakeNode(b);
        const created = await b.request('POST', `/apis/apps/v1/namespaces/${ns}/statefulsets`, {
          body: {
            metadata: { name: 'db' },
            spec: {
              replicas: 3,
              serviceName: 'db',
              selector: { matchLabels: { app: 'db' } },
              template: template(node, 'registry.k8s.io/pause:3.9'),
            },
          },
        });
        assert.equal(created.code, 201, created.text);
        assert.deepEqual(field(created.json, 'spec', 'updateStrategy'), {
          type: 'RollingUpdate',
          rollingUpdate: { partition: 0 },
        });
        assert.equal(field(created.json, 'spec', 'podManagementPolicy'), 'OrderedReady');
        const first = await settle(b, ns, atRevision(1));
        const firstRevision = String(field(first.sts, 'status', 'updateRevision'));
        assert.match(firstRevision, /^db-\w+$/);
        assert.deepEqual(
          first.seen.map((k) => k.split('@')[0]),
          ['db-0', 'db-1', 'db-2'],
        );

        const update = await b.request('PATCH', `/apis/apps/v1/namespaces/${ns}/statefulsets/db`, {
          contentType: STRATEGIC,
          body: { spec: { template: template(node, 'registry.k8s.io/pause:3.10') } },
        });
        assert.equal(update.code, 200, update.text);
        const second = await settle(b, ns, atRevision(2));
        const secondRevision = String(field(second.sts, 'status', 'updateRevision'));
        assert.notEqual(secondRevision, firstRevision);
        const replaced = second.seen
          .filter((k) => !first.seen.includes(k))
          .map((k) => k.split('@')[0]);
        assert.deepEqual(replaced, ['db-2', 'db-1', 'db-0'], 'from the highest ordinal down');

        const revisions = await b.request(
          'GET',
          `/apis/apps/v1/namespaces/${ns}/controllerrevisions?labelSelector=app%3Ddb`,
        );
        const byName = Object.fromEntries(
          ((revisions.json['items'] ?? []) as Obj[]).map((r) => [meta(r)['name'], r['revision']]),
        );
        assert.deepEqual(byName, { [firstRevision]: 1, [secondRevision]: 2 });
      },
    },
  ],
};
