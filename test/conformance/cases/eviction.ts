/**
 * The Eviction API as kubemaint's drain uses it: 201 Success and a graceful delete (DisruptionTarget,
 * deletionTimestamp, the PDB's disruptedPods), the 429 a PDB answers (with the DisruptionBudget cause
 * kubemaint reports), the 500 for two PDBs, the shortcut for pods that never started, 404, a name
 * that does not match, and dry-run. The PDB status comes from each backend's disruption controller.
 */
import assert from 'node:assert/strict';
import type { Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import {
  assertStatus,
  conditionsOf,
  createPod,
  fakeNode,
  field,
  markRunning,
  meta,
  objectWhen,
  podPath,
} from '../fixtures.js';

type Obj = Record<string, unknown>;

const evictionBody = (name: string, deleteOptions: Obj = {}) => ({
  apiVersion: 'policy/v1',
  kind: 'Eviction',
  metadata: { name },
  deleteOptions,
});

const evict = (b: Backend, ns: string, name: string, deleteOptions: Obj = {}, query = '') =>
  b.request('POST', `${podPath(ns, name)}/eviction${query}`, {
    body: evictionBody(name, deleteOptions),
  });

const pdbPath = (ns: string, name = '') =>
  `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets${name ? `/${name}` : ''}`;

/** Running, Ready pods `app=web` on a Ready node, and a PDB over them once its status is current. */
async function guarded(b: Backend, pods: number, minAvailable: number) {
  const ns = await b.namespace();
  const node = await fakeNode(b);
  const names = Array.from({ length: pods }, (_, i) => `web-${i}`);
  for (const name of names) {
    await createPod(b, ns, name, { labels: { app: 'web' }, spec: { nodeName: node } });
    await markRunning(b, ns, name);
  }
  const created = await b.request('POST', pdbPath(ns), {
    body: {
      metadata: { name: 'web' },
      spec: { minAvailable, selector: { matchLabels: { app: 'web' } } },
    },
  });
  assert.equal(created.code, 201, created.text);
  const allowed = Math.max(0, pods - minAvailable);
  const pdb = await objectWhen(b, pdbPath(ns, 'web'), 'the PDB status', (p) => {
    const s = (p['status'] ?? {}) as Obj;
    return (
      s['observedGeneration'] === meta(p)['generation'] &&
      s['currentHealthy'] === pods &&
      s['disruptionsAllowed'] === allowed
    );
  });
  return { ns, node, names, pdb };
}

const budgetCause = (pdb: string, desired: number, current: number) => ({
  causes: [
    {
      reason: 'DisruptionBudget',
      message: `The disruption budget ${pdb} needs ${desired} healthy pods and has ${current} currently`,
    },
  ],
});

export const evictionCases: CaseGroup = {
  name: 'Eviction API and PodDisruptionBudgets',
  cases: [
    {
      id: 'an allowed eviction is 201 Success; the pod is marked DisruptionTarget and deleted gracefully',
      async run(b) {
        const { ns, names } = await guarded(b, 2, 1);
        const reply = await evict(b, ns, names[0]!);
        assert.equal(reply.code, 201, reply.text);
        assert.deepEqual(reply.json, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          code: 201,
        });
        const pod = (await b.request('GET', podPath(ns, names[0]))).json;
        assert.ok(meta(pod)['deletionTimestamp'], 'terminating, not gone: no kubelet finished it');
        assert.equal(meta(pod)['deletionGracePeriodSeconds'], 30);
        const target = conditionsOf(pod).find((c) => c['type'] === 'DisruptionTarget');
        assert.equal(target?.['status'], 'True');
        assert.equal(target?.['reason'], 'EvictionByEvictionAPI');
        // The eviction spent the budget itself (the controller may have recounted since: same answer).
        const pdb = (await b.request('GET', pdbPath(ns, 'web'))).json;
        assert.equal(field(pdb, 'status', 'disruptionsAllowed'), 0, JSON.stringify(pdb['status']));
      },
    },
    {
      id: 'a PDB without room answers 429 TooManyRequests with a DisruptionBudget cause, no Retry-After',
      async run(b) {
        const { ns, names } = await guarded(b, 2, 2);
        const reply = await evict(b, ns, names[0]!);
        assertStatus(reply, {
          code: 429,
          reason: 'TooManyRequests',
          message: "Cannot evict pod as it would violate the pod's disruption budget.",
          details: budgetCause('web', 2, 2),
        });
        assert.equal(reply.headers['retry-after'], undefined);
        const pod = (await b.request('GET', podPath(ns, names[0]))).json;
        assert.equal(meta(pod)['deletionTimestamp'], undefined);
      },
    },
    {
      id: 'the budget is spent by an eviction: the next one is 429 until the controller counts again',
      async run(b) {
        const { ns, names } = await guarded(b, 2, 1);
        assert.equal((await evict(b, ns, names[0]!)).code, 201);
        await objectWhen(b, pdbPath(ns, 'web'), 'the PDB recounted', (p) => {
          return field(p, 'status', 'currentHealthy') === 1;
        });
        assertStatus(await evict(b, ns, names[1]!), {
          code: 429,
          reason: 'TooManyRequests',
          message: "Cannot evict pod as it would violate the pod's disruption budget.",
          details: budgetCause('web', 1, 1),
        });
      },
    },
    {
      id: 'two PDBs over one pod: 500 without a reason',
      async run(b) {
        const { ns, names } = await guarded(b, 2, 1);
        const second = await b.request('POST', pdbPath(ns), {
          body: {
            metadata: { name: 'web-too' },
            spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } },
          },
        });
        assert.equal(second.code, 201, second.text);
        assertStatus(await evict(b, ns, names[0]!), {
          code: 500,
          message:
            'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
        });
      },
    },
    {
      id: 'a pod that never started (Pending) is evicted whatever the PDB says',
      async run(b) {
        // The budget is short even of the running pod: only the Pending shortcut lets this one go.
        const { ns } = await guarded(b, 1, 2);
        await createPod(b, ns, 'waiting', {
          labels: { app: 'web' },
          spec: { nodeSelector: { 'kubernetes.io/hostname': 'conf-nowhere' } },
        });
        const reply = await evict(b, ns, 'waiting');
        assert.equal(reply.code, 201, reply.text);
        // Never bound to a node: nothing to wait for, it is gone at once.
        assert.equal((await b.request('GET', podPath(ns, 'waiting'))).code, 404);
      },
    },
    {
      id: 'evicting a missing pod is 404; a body name unlike the URL is 400',
      async run(b) {
        const ns = await b.namespace();
        assertStatus(await evict(b, ns, 'ghost'), {
          code: 404,
          reason: 'NotFound',
          message: 'pods "ghost" not found',
          details: { name: 'ghost', kind: 'pods' },
        });
        await createPod(b, ns, 'real');
        const mismatch = await b.request('POST', `${podPath(ns, 'real')}/eviction`, {
          body: evictionBody('other'),
        });
        assertStatus(mismatch, {
          code: 400,
          reason: 'BadRequest',
          message: /name in URL does not match name in Eviction object/,
        });
      },
    },
    {
      id: 'a UID precondition that does not match is 409 Conflict',
      async run(b) {
        const { ns, names } = await guarded(b, 2, 1);
        const pod = (await b.request('GET', podPath(ns, names[0]))).json;
        const reply = await evict(b, ns, names[0]!, {
          preconditions: { uid: '00000000-0000-0000-0000-000000000000' },
        });
        assertStatus(reply, {
          code: 409,
          reason: 'Conflict',
          message: `Operation cannot be fulfilled on Pod "${names[0]!}": the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match the UID in record (${String(meta(pod).uid)}). The object might have been deleted and then recreated`,
          details: { name: names[0]!, kind: 'Pod' },
        });
      },
    },
    {
      id: 'dry-run eviction (query and deleteOptions) is 201 and changes neither the pod nor the PDB',
      async run(b) {
        const { ns, names, pdb } = await guarded(b, 2, 1);
        const before = (await b.request('GET', podPath(ns, names[0]))).json;
        assert.equal((await evict(b, ns, names[0]!, {}, '?dryRun=All')).code, 201);
        assert.equal((await evict(b, ns, names[0]!, { dryRun: ['All'] })).code, 201);
        const after = (await b.request('GET', podPath(ns, names[0]))).json;
        assert.equal(meta(after).resourceVersion, meta(before).resourceVersion);
        const pdbAfter = (await b.request('GET', pdbPath(ns, 'web'))).json;
        assert.equal(meta(pdbAfter).resourceVersion, meta(pdb).resourceVersion);
      },
    },
  ],
};
