/**
 * DaemonSet rollouts, what `kubectl rollout status/history/undo ds/x` read and write: each template a
 * ControllerRevision (named `<ds>-<hash>`, labelled `controller-revision-hash` like its pods, numbered,
 * holding the `$patch: replace` of the template), a changed template replacing the pod (RollingUpdate)
 * or not until it is deleted (OnDelete), the status counting updated and available pods, and a
 * template that comes back taking the next revision number. The DaemonSet runs on one fake node of
 * the case's own (nodeSelector); its pods stop at once (grace 0), so no kubelet has to confirm their
 * end; the case marks the new pod Running as its kubelet would.
 */
import assert from 'node:assert/strict';
import { eventually, type Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { fakeNode, field, markRunning, meta, objectWhen, podPath, STRATEGIC } from '../fixtures.js';

type Obj = Record<string, unknown>;
const HASH = 'controller-revision-hash';
const labelsOf = (o: Obj) => (meta(o)['labels'] ?? {}) as Record<string, string>;

const template = (node: string, image: string) => ({
  metadata: { labels: { app: 'daemon' } },
  spec: {
    nodeSelector: { 'kubernetes.io/hostname': node },
    terminationGracePeriodSeconds: 0,
    containers: [{ name: 'main', image }],
  },
});

async function createDaemonSet(b: Backend, ns: string, node: string, strategy?: Obj) {
  const reply = await b.request('POST', `/apis/apps/v1/namespaces/${ns}/daemonsets`, {
    body: {
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'daemon' } },
        template: template(node, 'registry.k8s.io/pause:3.9'),
        ...(strategy ? { updateStrategy: strategy } : {}),
      },
    },
  });
  assert.equal(reply.code, 201, reply.text);
  return `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`;
}

/** The one live pod of the DaemonSet whose hash is `hash` (any when absent), marked Running. */
async function podOf(b: Backend, ns: string, hash?: string): Promise<Obj> {
  const pod = await eventually(`a daemon pod${hash ? ` of ${hash}` : ''}`, async () => {
    const list = await b.request('GET', `${podPath(ns)}?labelSelector=app%3Ddaemon`);
    const live = ((list.json['items'] ?? []) as Obj[]).filter(
      (p) => !meta(p)['deletionTimestamp'] && (!hash || labelsOf(p)[HASH] === hash),
    );
    return live.length === 1 && field(live[0], 'spec', 'nodeName') ? live[0] : undefined;
  });
  await markRunning(b, ns, String(meta(pod)['name']));
  return pod;
}

/** hash → revision number of the DaemonSet's ControllerRevisions, once it is `want`'s size. */
async function revisions(b: Backend, ns: string, size: number): Promise<Record<string, number>> {
  return eventually(`${size} ControllerRevisions`, async () => {
    const list = await b.request(
      'GET',
      `/apis/apps/v1/namespaces/${ns}/controllerrevisions?labelSelector=app%3Ddaemon`,
    );
    const items = (list.json['items'] ?? []) as Obj[];
    if (items.length !== size) return undefined;
    return Object.fromEntries(items.map((r) => [labelsOf(r)[HASH] ?? '', Number(r['revision'])]));
  });
}

const rolledOut = (generation: number) => (ds: Obj) =>
  field(ds, 'status', 'observedGeneration') === generation &&
  field(ds, 'status', 'desiredNumberScheduled') === 1 &&
  field(ds, 'status', 'updatedNumberScheduled') === 1 &&
  field(ds, 'status', 'numberAvailable') === 1;

export const daemonSetRolloutCases: CaseGroup = {
  name: 'DaemonSet rollouts',
  cases: [
    {
      id: 'a template change makes a new ControllerRevision and replaces the pod; a rollback takes the next revision',
      timeoutMs: 60_000,
      async run(b) {
        const ns = await b.namespace();
        const node = await fakeNode(b);
        const path = await createDaemonSet(b, ns, node);
        const first = await podOf(b, ns);
        const firstHash = labelsOf(first)[HASH] ?? '';
        assert.ok(firstHash, 'the pod carries controller-revision-hash');
        await objectWhen(b, path, 'the first rollout done', rolledOut(1));
        const list = await b.request('GET', `/apis/apps/v1/namespaces/${ns}/controllerrevisions`);
        const [revision] = (list.json['items'] ?? []) as Obj[];
        assert.ok(revision, list.text);
        assert.equal(meta(revision)['name'], `agent-${firstHash}`);
        assert.equal(revision['revision'], 1);
        assert.deepEqual(labelsOf(revision), { app: 'daemon', [HASH]: firstHash });
        const owner = (meta(revision)['ownerReferences'] as Obj[])[0] ?? {};
        assert.deepEqual(
          [owner['kind'], owner['name'], owner['controller']],
          ['DaemonSet', 'agent', true],
        );
        assert.deepEqual(field(revision, 'data', 'spec', 'template', '$patch'), 'replace');
        const containers = field(revision, 'data', 'spec', 'template', 'spec', 'containers');
        assert.equal((containers as Obj[])[0]?.['image'], 'registry.k8s.io/pause:3.9');

        const update = await b.request('PATCH', path, {
          contentType: STRATEGIC,
          body: { spec: { template: template(node, 'registry.k8s.io/pause:3.10') } },
        });
        assert.equal(update.code, 200, update.text);
        const hashes = await revisions(b, ns, 2);
        const secondHash = Object.keys(hashes).find((h) => h !== firstHash) ?? '';
        assert.deepEqual(hashes, { [firstHash]: 1, [secondHash]: 2 });
        const second = await podOf(b, ns, secondHash);
        assert.notEqual(meta(second)['name'], meta(first)['name']);
        await objectWhen(b, path, 'the update rolled out', rolledOut(2));

        // What kubectl rollout undo sends: the old revision's data as a strategic merge patch.
        const undo = await b.request('PATCH', path, {
          contentType: STRATEGIC,
          body: field(revision, 'data'),
        });
        assert.equal(undo.code, 200, undo.text);
        await eventually('the rolled-back template takes revision 3', async () => {
          const now = await revisions(b, ns, 2);
          return now[firstHash] === 3 && now[secondHash] === 2 ? now : undefined;
        });
        await podOf(b, ns, firstHash);
        await objectWhen(b, path, 'the rollback rolled out', rolledOut(3));
      },
    },
    {
      id: 'OnDelete: a template change replaces no pod until it is deleted, and the status says so',
      timeoutMs: 60_000,
      async run(b) {
        const ns = await b.namespace();
        const node = await fakeNode(b);
        const path = await createDaemonSet(b, ns, node, { type: 'OnDelete' });
        const first = await podOf(b, ns);
        await objectWhen(b, path, 'the first rollout done', rolledOut(1));
        const update = await b.request('PATCH', path, {
          contentType: STRATEGIC,
          body: { spec: { template: template(node, 'registry.k8s.io/pause:3.10') } },
        });
        assert.equal(update.code, 200, update.text);
        const ds = await objectWhen(
          b,
          path,
          'generation 2 observed',
          (d) => field(d, 'status', 'observedGeneration') === 2,
        );
        assert.equal(field(ds, 'status', 'updatedNumberScheduled'), undefined, 'no pod updated');
        assert.equal(field(ds, 'status', 'numberAvailable'), 1);
        const hashes = await revisions(b, ns, 2);
        const still = await b.request('GET', podPath(ns, String(meta(first)['name'])));
        assert.equal(still.code, 200, 'the old pod stays');
        const deleted = await b.request('DELETE', podPath(ns, String(meta(first)['name'])));
        assert.equal(deleted.code, 200, deleted.text);
        const newHash = Object.entries(hashes).find(([, r]) => r === 2)?.[0];
        await podOf(b, ns, newHash);
        await objectWhen(b, path, 'the replaced pod counted', rolledOut(2));
      },
    },
  ],
};
