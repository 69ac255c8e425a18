import assert from 'node:assert/strict';
import { request, type RequestOptions } from 'node:https';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  PolicyV1Api,
  V1MicroTime,
  type V1Lease,
  type V1Pod,
} from '@kubernetes/client-node';
import { startSimApi, statusBody, type SimApi } from '../support.js';
import type { EvictionResult } from '../../src/api/index.js';
import { R, type KObject } from '../../src/types.js';

const readyPod = (name: string, ready = true): KObject => ({
  metadata: { name, namespace: 'default', labels: { app: 'web' } },
  spec: {
    nodeName: 'n1',
    containers: [{ name: 'c', image: 'nginx' }],
    terminationGracePeriodSeconds: 30,
  },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

const eviction = (name: string, dryRun = false) => ({
  apiVersion: 'policy/v1',
  kind: 'Eviction',
  metadata: { name, namespace: 'default' },
  deleteOptions: dryRun ? { dryRun: ['All'] } : {},
});

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiException, String(error));
    return { code: error.code, status: statusBody(error), headers: error.headers };
  }
  assert.fail('expected the request to fail');
}

describe('sim API over HTTPS: eviction and PDBs', () => {
  let sim: SimApi;
  let core: CoreV1Api;
  const evictions: EvictionResult[] = [];
  before(async () => {
    sim = await startSimApi({ onEviction: (r) => evictions.push(r) });
    core = sim.kc.makeApiClient(CoreV1Api);
    sim.store.create(R.pods, readyPod('web-1'));
    sim.store.create(R.pods, readyPod('web-2'));
    await sim.kc.makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({
      namespace: 'default',
      body: {
        metadata: { name: 'web-pdb' },
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
      },
    });
  });
  after(async () => sim.close());

  it('refuses with 429 DisruptionBudget (no Retry-After) while the budget is spent', async () => {
    const refused = await failure(
      core.createNamespacedPodEviction({
        namespace: 'default',
        name: 'web-1',
        body: eviction('web-1'),
      }),
    );
    assert.equal(refused.code, 429);
    assert.equal(refused.status.reason, 'TooManyRequests');
    assert.equal(
      refused.status.message,
      "Cannot evict pod as it would violate the pod's disruption budget.",
    );
    assert.deepEqual(refused.status.details?.causes, [
      {
        reason: 'DisruptionBudget',
        message: 'The disruption budget web-pdb needs 2 healthy pods and has 2 currently',
      },
    ]);
    assert.equal(refused.headers['retry-after'], undefined);
    assert.ok(sim.store.get(R.pods, 'default', 'web-1'));
  });

  it('answers 429 with Retry-After: 10 while the PDB status is behind its generation', async () => {
    sim.store.mutate(
      R.pdbs,
      'default',
      'web-pdb',
      (p) => (p.status = { observedGeneration: 0, disruptionsAllowed: 1 }),
      { subresource: 'status' },
    );
    const stale = await failure(
      core.createNamespacedPodEviction({
        namespace: 'default',
        name: 'web-1',
        body: eviction('web-1'),
      }),
    );
    assert.equal(stale.code, 429);
    assert.equal(stale.headers['retry-after'], '10');
    assert.match(
      stale.status.details?.causes?.[0]?.message ?? '',
      /is still being processed by the server/,
    );
  });

  it('accepts once a replacement is Ready: 201, budget decremented, pod marked and deleted gracefully', async () => {
    sim.store.create(R.pods, readyPod('web-3'));
    // What the disruption controller would write: 3 healthy, 2 desired.
    sim.store.mutate(
      R.pdbs,
      'default',
      'web-pdb',
      (p) => {
        p.status = {
          observedGeneration: p.metadata.generation,
          disruptionsAllowed: 1,
          currentHealthy: 3,
          desiredHealthy: 2,
          expectedPods: 3,
        };
      },
      { subresource: 'status' },
    );
    const dry = await core.createNamespacedPodEviction({
      namespace: 'default',
      name: 'web-1',
      body: eviction('web-1', true),
    });
    assert.ok(dry);
    assert.equal(
      sim.store.get(R.pdbs, 'default', 'web-pdb')!.status!['disruptionsAllowed'],
      1,
      'dry run changes nothing',
    );
    assert.equal(sim.store.get(R.pods, 'default', 'web-1')!.metadata.deletionTimestamp, undefined);

    await core.createNamespacedPodEviction({
      namespace: 'default',
      name: 'web-1',
      body: eviction('web-1'),
    });
    const pdb = sim.store.get(R.pdbs, 'default', 'web-pdb')!;
    assert.equal(pdb.status!['disruptionsAllowed'], 0);
    assert.ok((pdb.status!['disruptedPods'] as Record<string, string>)['web-1']);
    const pod = sim.store.get(R.pods, 'default', 'web-1')! as unknown as V1Pod;
    assert.ok(pod.metadata?.deletionTimestamp, 'graceful: the kubelet removes it later');
    assert.ok(
      pod.status?.conditions?.some(
        (c) => c.type === 'DisruptionTarget' && c.reason === 'EvictionByEvictionAPI',
      ),
    );
    assert.deepEqual(
      evictions.map((e) => [e.pod.metadata.name, e.dryRun]),
      [
        ['web-1', true],
        ['web-1', false],
      ],
    );

    const second = await failure(
      core.createNamespacedPodEviction({
        namespace: 'default',
        name: 'web-2',
        body: eviction('web-2'),
      }),
    );
    assert.equal(second.code, 429);
  });

  it('computes the budget itself when no controller has written a PDB status', async () => {
    sim.store.create(R.pods, {
      ...readyPod('solo-1'),
      metadata: { name: 'solo-1', namespace: 'default', labels: { app: 'solo' } },
    });
    sim.store.create(R.pods, {
      ...readyPod('solo-2'),
      metadata: { name: 'solo-2', namespace: 'default', labels: { app: 'solo' } },
    });
    sim.store.create(R.pdbs, {
      metadata: { name: 'solo', namespace: 'default' },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'solo' } } },
    });
    await core.createNamespacedPodEviction({
      namespace: 'default',
      name: 'solo-1',
      body: eviction('solo-1'),
    });
    const refused = await failure(
      core.createNamespacedPodEviction({
        namespace: 'default',
        name: 'solo-2',
        body: eviction('solo-2'),
      }),
    );
    assert.equal(refused.code, 429);
  });

  it('several matching PDBs is a 500 without a reason; a name mismatch is a 400; a missing pod 404', async () => {
    sim.store.create(R.pdbs, {
      metadata: { name: 'web-pdb-2', namespace: 'default' },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    const multi = await failure(
      core.createNamespacedPodEviction({
        namespace: 'default',
        name: 'web-2',
        body: eviction('web-2'),
      }),
    );
    assert.equal(multi.code, 500);
    assert.equal(multi.status.reason, undefined);
    assert.equal(
      multi.status.message,
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
    const mismatch = await failure(
      core.createNamespacedPodEviction({
        namespace: 'default',
        name: 'web-2',
        body: eviction('web-3'),
      }),
    );
    assert.equal(mismatch.code, 400);
    const missing = await failure(
      core.createNamespacedPodEviction({
        namespace: 'default',
        name: 'nope',
        body: eviction('nope'),
      }),
    );
    assert.equal(missing.code, 404);
  });
});

describe('sim API over HTTPS: Leases, faults, admin', () => {
  let sim: SimApi;
  before(async () => {
    sim = await startSimApi();
  });
  after(async () => sim.close());

  it('two clients racing for one Lease: exactly one wins, the other gets 409', async () => {
    const a = sim.kc.makeApiClient(CoordinationV1Api);
    const b = sim.kc.makeApiClient(CoordinationV1Api);
    await a.createNamespacedLease({
      namespace: 'default',
      body: { metadata: { name: 'kubemaint-slot-0' }, spec: {} },
    });
    const [seenA, seenB] = await Promise.all([
      a.readNamespacedLease({ namespace: 'default', name: 'kubemaint-slot-0' }),
      b.readNamespacedLease({ namespace: 'default', name: 'kubemaint-slot-0' }),
    ]);
    const claim = (api: CoordinationV1Api, lease: V1Lease, holder: string) =>
      api.replaceNamespacedLease({
        namespace: 'default',
        name: 'kubemaint-slot-0',
        body: {
          ...lease,
          spec: {
            holderIdentity: holder,
            leaseDurationSeconds: 60,
            acquireTime: new V1MicroTime(),
            renewTime: new V1MicroTime(),
          },
        },
      });
    const results = await Promise.allSettled([claim(a, seenA, 'a'), claim(b, seenB, 'b')]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    assert.equal((lost[0]!.reason as ApiException<string>).code, 409);
    const holder = sim.store.get(R.leases, 'default', 'kubemaint-slot-0')!.spec!['holderIdentity'];
    assert.equal(holder, (won[0] as PromiseFulfilledResult<V1Lease>).value.spec?.holderIdentity);
  });

  it('a Lease update without resourceVersion is 422; a millisecond renewTime is 400', async () => {
    const api = sim.kc.makeApiClient(CoordinationV1Api);
    const unconditional = await failure(
      api.replaceNamespacedLease({
        namespace: 'default',
        name: 'kubemaint-slot-0',
        body: { metadata: { name: 'kubemaint-slot-0' }, spec: {} },
      }),
    );
    assert.equal(unconditional.code, 422);
    const millis = await failure(
      api.createNamespacedLease({
        namespace: 'default',
        body: {
          metadata: { name: 'ms' },
          spec: { renewTime: new Date() },
        },
      }),
    );
    assert.equal(millis.code, 400);
  });

  it('an injected 429 reaches the client with its Retry-After header; faults change at run time', async () => {
    const core = sim.kc.makeApiClient(CoreV1Api);
    sim.api.setFaults([{ resource: 'nodes', verb: 'list', error: 429, retryAfterSeconds: 3 }]);
    const limited = await failure(core.listNode());
    assert.equal(limited.code, 429);
    assert.equal(limited.headers['retry-after'], '3');
    await core.listNamespacedPod({ namespace: 'default' });
    sim.api.setFaults([{ resource: 'nodes', verb: 'list', error: 500, rate: 1, times: 1 }]);
    assert.equal((await failure(core.listNode())).code, 500);
    await core.listNode();
    sim.api.setFaults([{ resource: 'configmaps', verb: 'create', error: 409 }]);
    assert.equal(
      (
        await failure(
          core.createNamespacedConfigMap({
            namespace: 'default',
            body: { metadata: { name: 'x' } },
          }),
        )
      ).code,
      409,
    );
    sim.api.setFaults([{ latencyMs: 150 }]);
    const started = Date.now();
    await core.listNode();
    assert.ok(Date.now() - started >= 140);
    sim.api.setFaults([]);
  });

  it('the admin endpoint sets faults and serves the audit log and a status readout', async () => {
    const core = sim.kc.makeApiClient(CoreV1Api);
    // The admin endpoint speaks plain JSON over the same TLS and token as the API.
    const admin = async (method: string, path: string, body?: unknown) => {
      const opts: RequestOptions = { method, headers: {} };
      await sim.kc.applyToHTTPSOptions(opts);
      return new Promise<{ code: number; json: Record<string, unknown> }>((resolve, reject) => {
        const req = request(`${sim.api.url}${path}`, opts, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () =>
            resolve({
              code: res.statusCode ?? 0,
              json: JSON.parse(text) as Record<string, unknown>,
            }),
          );
        });
        req.on('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    };
    const set = await admin('POST', '/_sim/faults', {
      rules: [{ resource: 'pods', verb: 'get', error: 500 }],
    });
    assert.equal(set.code, 200);
    assert.equal(
      (await failure(core.readNamespacedPod({ namespace: 'default', name: 'x' }))).code,
      500,
    );
    const bad = await admin('POST', '/_sim/faults', [{ verb: 'explode' }]);
    assert.equal(bad.code, 400);
    assert.match(String(bad.json['message']), /faults\[0\]: verb "explode"/);
    await admin('DELETE', '/_sim/faults');
    const audit = await admin('GET', '/_sim/audit?resource=leases.coordination.k8s.io');
    const items = audit.json['items'] as { verb: string; name: string }[];
    assert.ok(items.length >= 2);
    assert.ok(items.every((e) => e.name === 'kubemaint-slot-0'));
    const status = await admin('GET', '/_sim/status');
    assert.equal(status.json['resourceVersion'], sim.store.resourceVersion());
    assert.equal(status.json['now'], sim.now().toISOString());
  });
});
