/**
 * Status subresources and dry-run. For nodes, pods and jobs a write to the main resource leaves the
 * status alone and a write to `/status` leaves everything but the status alone (kubemaint cordons
 * through the main resource while kubelets post status). `dryRun=All` validates and answers as if it
 * wrote, but stores nothing; any other dryRun value is refused.
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
  meta,
  MERGE,
  podPath,
} from '../fixtures.js';

type Obj = Record<string, unknown>;

const probe = { type: 'ConformanceProbe', status: 'True', reason: 'Probe' };
const hasProbe = (o: Obj) => conditionsOf(o).some((c) => c['type'] === 'ConformanceProbe');

/**
 * Main-resource and status writes of one object: the main resource cannot change the status, and
 * `/status` cannot change the spec (its metadata changes, labels included, do go through).
 */
async function scoped(b: Backend, path: string, spec: Obj, readSpec: (o: Obj) => unknown) {
  const main = await b.request('PATCH', path, {
    contentType: MERGE,
    body: { metadata: { labels: { via: 'main' } }, status: { conditions: [probe] } },
  });
  assert.equal(main.code, 200, main.text);
  assert.equal(field(main.json, 'metadata', 'labels', 'via'), 'main');
  assert.equal(hasProbe(main.json), false, 'status ignored on the main resource');
  const status = await b.request('PATCH', `${path}/status`, {
    contentType: MERGE,
    body: { metadata: { labels: { via: 'status' } }, spec, status: { conditions: [probe] } },
  });
  assert.equal(status.code, 200, status.text);
  assert.equal(hasProbe(status.json), true);
  assert.equal(field(status.json, 'metadata', 'labels', 'via'), 'status');
  assert.notDeepEqual(readSpec(status.json), readSpec({ spec }), 'spec ignored on /status');
  const read = (await b.request('GET', path)).json;
  assert.equal(hasProbe(read), true);
  assert.deepEqual(readSpec(read), readSpec(main.json));
}

export const subresourceCases: CaseGroup = {
  name: 'Status subresources and dry-run',
  cases: [
    {
      id: 'nodes: main-resource writes ignore status, /status writes ignore the spec',
      async run(b) {
        const node = await fakeNode(b);
        await scoped(b, `/api/v1/nodes/${node}`, { unschedulable: true }, (o) =>
          field(o, 'spec', 'unschedulable'),
        );
      },
    },
    {
      id: 'pods: main-resource writes ignore status, /status writes ignore the spec',
      async run(b) {
        const ns = await b.namespace();
        // Bound to a node that does not exist: no scheduler writes the pod meanwhile.
        await createPod(b, ns, 'p', { spec: { nodeName: 'conf-nowhere' } });
        await scoped(b, podPath(ns, 'p'), { activeDeadlineSeconds: 5 }, (o) =>
          field(o, 'spec', 'activeDeadlineSeconds'),
        );
      },
    },
    {
      id: 'jobs: main-resource writes ignore status, /status writes ignore the spec',
      async run(b) {
        const ns = await b.namespace();
        const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
        const created = await b.request('POST', jobs, {
          body: {
            metadata: { name: 'j' },
            spec: {
              suspend: true,
              template: {
                spec: {
                  restartPolicy: 'Never',
                  containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
                },
              },
            },
          },
        });
        assert.equal(created.code, 201, created.text);
        await scoped(b, `${jobs}/j`, { parallelism: 3 }, (o) => field(o, 'spec', 'parallelism'));
      },
    },
    {
      id: 'dryRun=All create answers the object (defaults applied) and stores nothing',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('POST', `${podPath(ns)}?dryRun=All`, {
          body: { metadata: { name: 'ghost' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        });
        assert.equal(reply.code, 201, reply.text);
        assert.equal(meta(reply.json)['name'], 'ghost');
        assert.equal(field(reply.json, 'spec', 'restartPolicy'), 'Always');
        assert.equal(meta(reply.json).resourceVersion, undefined, 'never stored, no version');
        assert.equal((await b.request('GET', podPath(ns, 'ghost'))).code, 404);
      },
    },
    {
      id: 'dryRun=All patch and delete answer the result and change nothing',
      async run(b) {
        const ns = await b.namespace();
        const path = `/api/v1/namespaces/${ns}/configmaps`;
        const created = await b.request('POST', path, { body: { metadata: { name: 'c' } } });
        const patched = await b.request('PATCH', `${path}/c?dryRun=All`, {
          contentType: MERGE,
          body: { metadata: { labels: { dry: 'run' } } },
        });
        assert.equal(patched.code, 200, patched.text);
        assert.equal(field(patched.json, 'metadata', 'labels', 'dry'), 'run');
        const deleted = await b.request('DELETE', `${path}/c?dryRun=All`);
        assert.equal(deleted.code, 200, deleted.text);
        const read = (await b.request('GET', `${path}/c`)).json;
        assert.equal(meta(read).resourceVersion, meta(created.json).resourceVersion);
        assert.equal(field(read, 'metadata', 'labels'), undefined);
      },
    },
    {
      id: 'a dryRun value other than All is 422 Invalid',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('POST', `${podPath(ns)}?dryRun=Some`, {
          body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        });
        const unsupported = 'Unsupported value: ["Some"]: supported values: "All"';
        assertStatus(reply, {
          code: 422,
          reason: 'Invalid',
          message: `CreateOptions.meta.k8s.io "" is invalid: dryRun: ${unsupported}`,
          details: {
            group: 'meta.k8s.io',
            kind: 'CreateOptions',
            causes: [{ reason: 'FieldValueNotSupported', message: unsupported, field: 'dryRun' }],
          },
        });
        assert.equal((await b.request('GET', podPath(ns, 'p'))).code, 404);
      },
    },
  ],
};
