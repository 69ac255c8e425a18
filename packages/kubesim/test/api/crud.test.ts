import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  VersionApi,
  type V1Pod,
} from '@kubernetes/client-node';
import { startSimApi, statusBody, type SimApi } from '../support.js';
import { R } from '../../src/types.js';

const podSpec = (name: string, extra: Partial<V1Pod['spec']> = {}): V1Pod => ({
  metadata: { name, labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...extra },
});

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiException, `expected ApiException, got ${String(error)}`);
    return { code: error.code, status: statusBody(error), headers: error.headers };
  }
  assert.fail('expected the request to fail');
}

describe('sim API over HTTPS: discovery, CRUD, errors', () => {
  let sim: SimApi;
  let core: CoreV1Api;
  before(async () => {
    sim = await startSimApi();
    core = sim.kc.makeApiClient(CoreV1Api);
  });
  after(async () => sim.close());

  it('serves /version and discovery with pods/eviction as policy/v1 Eviction', async () => {
    const version = await sim.kc.makeApiClient(VersionApi).getCode();
    assert.equal(version.gitVersion, 'v1.31.4');
    const resources = await core.getAPIResources();
    const eviction = resources.resources.find((r) => r.name === 'pods/eviction');
    assert.deepEqual(
      [eviction?.group, eviction?.version, eviction?.kind],
      ['policy', 'v1', 'Eviction'],
    );
    assert.ok(resources.resources.some((r) => r.name === 'nodes/status'));
    const res = await fetch(`${sim.api.url}/apis`, {
      headers: { authorization: `Bearer ${sim.api.token}` },
    }).catch(() => undefined);
    // Node's fetch does not trust the sim CA; client-node does, through the kubeconfig.
    assert.equal(res, undefined);
  });

  it('rejects a wrong bearer token with 401', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    kc.users[0] = { ...kc.users[0]!, token: 'wrong' };
    const { code } = await rejection(kc.makeApiClient(CoreV1Api).listNode());
    assert.equal(code, 401);
  });

  it('creates, reads, replaces and lists; a stale resourceVersion is 409 Conflict', async () => {
    const created = await core.createNamespacedPod({
      namespace: 'default',
      body: podSpec('crud-1'),
    });
    assert.ok(created.metadata?.uid);
    assert.equal(created.metadata?.namespace, 'default');
    const read = await core.readNamespacedPod({ namespace: 'default', name: 'crud-1' });
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
    read.metadata!.labels = { app: 'web', v: '2' };
    const replaced = await core.replaceNamespacedPod({
      namespace: 'default',
      name: 'crud-1',
      body: read,
    });
    assert.notEqual(replaced.metadata?.resourceVersion, read.metadata?.resourceVersion);
    const stale = await rejection(
      core.replaceNamespacedPod({ namespace: 'default', name: 'crud-1', body: read }),
    );
    assert.equal(stale.code, 409);
    assert.equal(stale.status.reason, 'Conflict');
    assert.match(stale.status.message ?? '', /the object has been modified/);
    const list = await core.listNamespacedPod({ namespace: 'default' });
    assert.ok(list.items.some((p) => p.metadata?.name === 'crud-1'));
  });

  it('AlreadyExists, NotFound and a missing namespace carry the real reasons', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'dup' } },
    });
    const dup = await rejection(
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'dup' } } }),
    );
    assert.deepEqual(
      [dup.code, dup.status.reason, dup.status.message],
      [409, 'AlreadyExists', 'configmaps "dup" already exists'],
    );
    const missing = await rejection(
      core.readNamespacedConfigMap({ namespace: 'default', name: 'ghost' }),
    );
    assert.deepEqual([missing.code, missing.status.reason], [404, 'NotFound']);
    const noNs = await rejection(
      core.createNamespacedConfigMap({ namespace: 'nope', body: { metadata: { name: 'x' } } }),
    );
    assert.equal(noNs.status.message, 'namespaces "nope" not found');
  });

  it('422 Invalid for a Job whose pods would restart Always', async () => {
    const batch = sim.kc.makeApiClient(BatchV1Api);
    const bad = await rejection(
      batch.createNamespacedJob({
        namespace: 'default',
        body: {
          metadata: { name: 'j' },
          spec: {
            template: {
              spec: { restartPolicy: 'Always', containers: [{ name: 'c', image: 'i' }] },
            },
          },
        },
      }),
    );
    assert.equal(bad.code, 422);
    assert.equal(bad.status.reason, 'Invalid');
  });

  it('dryRun=All validates and returns but stores nothing', async () => {
    const before = sim.store.resourceVersion();
    const result = await core.createNamespacedPod({
      namespace: 'default',
      body: podSpec('dry'),
      dryRun: 'All',
    });
    assert.equal(result.metadata?.name, 'dry');
    assert.equal(sim.store.get(R.pods, 'default', 'dry'), undefined);
    assert.equal(sim.store.resourceVersion(), before);
  });

  it('patches: merge (null deletes), strategic (containers merged by name), JSON patch', async () => {
    await core.createNode({
      body: { metadata: { name: 'patch-node', labels: { a: '1', b: '2' } } },
    });
    const merged = await core.patchNode(
      {
        name: 'patch-node',
        body: { metadata: { labels: { a: null, c: '3' } }, spec: { unschedulable: true } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.deepEqual(merged.metadata?.labels, { b: '2', c: '3' });
    const uncordoned = await core.patchNode(
      { name: 'patch-node', body: { spec: { unschedulable: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    assert.equal(uncordoned.spec?.unschedulable, undefined);

    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'smp' },
        spec: {
          containers: [
            { name: 'a', image: 'one' },
            { name: 'b', image: 'two' },
          ],
        },
      },
    });
    const smp = await core.patchNamespacedPod(
      {
        namespace: 'default',
        name: 'smp',
        body: { spec: { containers: [{ name: 'b', image: 'three' }] } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(
      smp.spec?.containers.map((c) => `${c.name}=${c.image}`),
      ['a=one', 'b=three'],
    );

    const json = await core.patchNode({
      name: 'patch-node',
      body: [
        { op: 'test', path: '/metadata/labels/b', value: '2' },
        { op: 'remove', path: '/metadata/labels/b' },
        { op: 'add', path: '/metadata/annotations', value: { note: 'x' } },
      ],
    });
    assert.deepEqual(json.metadata?.labels, { c: '3' });
    assert.deepEqual(json.metadata?.annotations, { note: 'x' });
    const failedTest = await rejection(
      core.patchNode({
        name: 'patch-node',
        body: [{ op: 'test', path: '/metadata/labels/c', value: 'nope' }],
      }),
    );
    assert.equal(failedTest.code, 422);
    const objectAsJsonPatch = await rejection(
      core.patchNode({ name: 'patch-node', body: { spec: {} } }),
    );
    assert.equal(objectAsJsonPatch.code, 400);
    assert.match(
      objectAsJsonPatch.status.message ?? '',
      /cannot unmarshal object into Go value of type \[\]handlers.jsonPatchOp/,
    );
  });

  it('a main-resource patch cannot change status; the status subresource can', async () => {
    const apps = sim.kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'st' },
        spec: {
          selector: { matchLabels: { app: 'st' } },
          template: {
            metadata: { labels: { app: 'st' } },
            spec: { containers: [{ name: 'c', image: 'i' }] },
          },
        },
      },
    });
    const main = await apps.patchNamespacedDeployment(
      {
        namespace: 'default',
        name: 'st',
        body: { spec: { replicas: 4 }, status: { readyReplicas: 9 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(main.spec?.replicas, 4);
    assert.equal(main.metadata?.generation, 2);
    assert.equal(main.status?.readyReplicas, undefined);
    const status = await apps.patchNamespacedDeploymentStatus(
      { namespace: 'default', name: 'st', body: { status: { readyReplicas: 4 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(status.status?.readyReplicas, 4);
    assert.equal(status.metadata?.generation, 2);
  });

  it('graceful deletion keeps a scheduled pod with deletionTimestamp; preconditions are honoured', async () => {
    const pod = await core.createNamespacedPod({
      namespace: 'default',
      body: podSpec('grace', { nodeName: 'n1', terminationGracePeriodSeconds: 20 }),
    });
    const wrongUid = await rejection(
      core.deleteNamespacedPod({
        namespace: 'default',
        name: 'grace',
        body: { preconditions: { uid: 'not-the-uid' } },
      }),
    );
    assert.equal(wrongUid.code, 409);
    assert.match(
      wrongUid.status.message ?? '',
      /the UID in the precondition \(not-the-uid\) does not match the UID in record/,
    );
    const deleted = await core.deleteNamespacedPod({
      namespace: 'default',
      name: 'grace',
      body: { preconditions: { uid: pod.metadata!.uid! } },
    });
    assert.equal(deleted.metadata?.deletionGracePeriodSeconds, 20);
    const still = await core.readNamespacedPod({ namespace: 'default', name: 'grace' });
    assert.ok(still.metadata?.deletionTimestamp);
    await core.deleteNamespacedPod({ namespace: 'default', name: 'grace', gracePeriodSeconds: 0 });
    const gone = await rejection(core.readNamespacedPod({ namespace: 'default', name: 'grace' }));
    assert.equal(gone.code, 404);
  });

  it('deleting a ConfigMap answers a Success Status; a Job delete records the propagation policy', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'bye' } },
    });
    const status = await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'bye' });
    assert.equal(status.status, 'Success');
    const batch = sim.kc.makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace: 'default',
      body: {
        metadata: { name: 'job' },
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } },
        },
      },
    });
    await batch.deleteNamespacedJob({
      namespace: 'default',
      name: 'job',
      propagationPolicy: 'Background',
    });
    const entry = sim.store.audit().at(-1)!;
    assert.deepEqual(
      [entry.verb, entry.resource, entry.propagationPolicy],
      ['delete', R.jobs, 'Background'],
    );
    assert.match(entry.actor, /^http:/);
  });
});
