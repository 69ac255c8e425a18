/**
 * Server-side apply and managed fields: an apply needs a field manager, creates what is missing and
 * makes its manager own exactly what it applied; updates give their manager the fields they change;
 * an apply that would change another manager's field is a 409 naming each conflict, unless forced;
 * fields an applier stops applying go unless someone else owns them; keyed lists merge by key.
 */
import assert from 'node:assert/strict';
import type { Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { assertStatus, MERGE } from '../fixtures.js';

type Obj = Record<string, unknown>;
const APPLY = 'application/apply-patch+yaml';
const cmPath = (ns: string, name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;

async function apply(b: Backend, path: string, config: Obj, query: string) {
  return b.request('PATCH', `${path}?${query}`, { contentType: APPLY, body: config });
}

/** managedFields without their times, which differ between runs. */
const managers = (o: Obj) =>
  (((o['metadata'] as Obj)['managedFields'] ?? []) as Obj[]).map(({ time: _t, ...entry }) => entry);

const entry = (manager: string, operation: string, fieldsV1: Obj, apiVersion = 'v1') => ({
  manager,
  operation,
  apiVersion,
  fieldsType: 'FieldsV1',
  fieldsV1,
});

const settings = (data: Obj) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings' },
  data,
});

export const applyCases: CaseGroup = {
  name: 'Server-side apply and managed fields',
  cases: [
    {
      id: 'apply needs a fieldManager; it creates the object and its manager owns what it applied',
      async run(b) {
        const ns = await b.namespace();
        const path = cmPath(ns, 'settings');
        assertStatus(await apply(b, path, settings({ a: '1' }), ''), {
          code: 422,
          reason: 'Invalid',
          message:
            'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        });
        const created = await apply(b, path, settings({ a: '1' }), 'fieldManager=alice');
        assert.equal(created.code, 201, created.text);
        assert.deepEqual(created.json['data'], { a: '1' });
        assert.deepEqual(managers(created.json), [
          entry('alice', 'Apply', { 'f:data': { 'f:a': {} } }),
        ]);
        const meta = created.json['metadata'] as Obj;
        const [first] = meta['managedFields'] as Obj[];
        assert.match(String(first?.['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      },
    },
    {
      id: 'an update takes the fields it changes; a conflicting apply is 409 unless forced; unapplied fields go',
      async run(b) {
        const ns = await b.namespace();
        const path = cmPath(ns, 'settings');
        assert.equal(
          (await apply(b, path, settings({ a: '1', b: '2' }), 'fieldManager=alice')).code,
          201,
        );
        const updated = await b.request('PATCH', `${path}?fieldManager=bob`, {
          contentType: MERGE,
          body: { data: { b: '3' } },
        });
        assert.deepEqual(managers(updated.json), [
          entry('alice', 'Apply', { 'f:data': { 'f:a': {} } }),
          entry('bob', 'Update', { 'f:data': { 'f:b': {} } }),
        ]);
        assertStatus(await apply(b, path, settings({ a: '1', b: '2' }), 'fieldManager=alice'), {
          code: 409,
          reason: 'Conflict',
          message: 'Apply failed with 1 conflict: conflict with "bob" using v1: .data.b',
        });
        const shared = await apply(b, path, settings({ a: '1' }), 'fieldManager=carol');
        assert.deepEqual(shared.json['data'], { a: '1', b: '3' });
        assert.deepEqual(
          managers(shared.json).map((e) => e['manager']),
          ['carol', 'alice', 'bob'],
        );
        const forced = await apply(b, path, settings({ a: '9' }), 'fieldManager=dave&force=true');
        assert.deepEqual(forced.json['data'], { a: '9', b: '3' });
        assert.deepEqual(managers(forced.json), [
          entry('dave', 'Apply', { 'f:data': { 'f:a': {} } }),
          entry('bob', 'Update', { 'f:data': { 'f:b': {} } }),
        ]);
        // dave applies without a: it goes (no one else owns it); bob's b stays.
        const dropped = await apply(b, path, settings({ c: '1' }), 'fieldManager=dave');
        assert.deepEqual(dropped.json['data'], { b: '3', c: '1' });
      },
    },
    {
      id: 'keyed lists merge by key: a second applier adds a container, the first keeps its own',
      async run(b) {
        const ns = await b.namespace();
        const path = `/apis/apps/v1/namespaces/${ns}/deployments/web`;
        const deployment = (containers: Obj[], replicas?: number) => ({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web' },
          spec: {
            ...(replicas === undefined ? {} : { replicas }),
            selector: { matchLabels: { app: 'web' } },
            template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
          },
        });
        const web = {
          name: 'web',
          image: 'registry.k8s.io/pause:3.10',
          env: [{ name: 'MODE', value: 'fast' }],
        };
        const first = await apply(b, path, deployment([web], 0), 'fieldManager=team');
        assert.equal(first.code, 201, first.text);
        assert.deepEqual(managers(first.json), [
          entry(
            'team',
            'Apply',
            {
              'f:spec': {
                'f:replicas': {},
                'f:selector': {},
                'f:template': {
                  'f:metadata': { 'f:labels': { 'f:app': {} } },
                  'f:spec': {
                    'f:containers': {
                      'k:{"name":"web"}': {
                        '.': {},
                        'f:env': { 'k:{"name":"MODE"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                        'f:image': {},
                        'f:name': {},
                      },
                    },
                  },
                },
              },
            },
            'apps/v1',
          ),
        ]);
        const sidecar = { name: 'log', image: 'registry.k8s.io/pause:3.9' };
        const second = await apply(b, path, deployment([sidecar]), 'fieldManager=platform');
        assert.equal(second.code, 200, second.text);
        const names = (o: Obj) =>
          (
            ((((o['spec'] as Obj)['template'] as Obj)['spec'] as Obj)['containers'] as Obj[]) ?? []
          ).map((c) => c['name']);
        assert.deepEqual(names(second.json), ['web', 'log']);
        const again = await apply(
          b,
          path,
          deployment([{ ...web, env: [] }], 0),
          'fieldManager=team',
        );
        assert.deepEqual(names(again.json), ['web', 'log']);
        const template = ((again.json['spec'] as Obj)['template'] as Obj)['spec'] as Obj;
        assert.equal(((template['containers'] as Obj[])[0] as Obj)['env'], undefined);
      },
    },
    {
      id: 'a create records its manager (Update) with the fields it set, labels as a member map',
      async run(b) {
        const ns = await b.namespace();
        const created = await b.request(
          'POST',
          `/api/v1/namespaces/${ns}/configmaps?fieldManager=creator`,
          {
            body: { metadata: { name: 'made', labels: { app: 'web' } }, data: { k: 'v' } },
          },
        );
        assert.equal(created.code, 201, created.text);
        assert.deepEqual(managers(created.json), [
          entry('creator', 'Update', {
            'f:data': { '.': {}, 'f:k': {} },
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          }),
        ]);
      },
    },
  ],
};
