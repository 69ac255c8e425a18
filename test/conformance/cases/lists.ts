/**
 * Lists as kubemaint pages through them: field selectors (spec.nodeName on pods, metadata.name,
 * spec.unschedulable on nodes, and the 400 for an unsupported one), label selector operators, and
 * `limit`/`continue` pagination with `remainingItemCount` (set only when the list has no selector).
 */
import assert from 'node:assert/strict';
import type { Backend } from '../backend.js';
import type { CaseGroup } from '../case.js';
import { assertStatus, createPod, fakeNode, field, MERGE, podPath } from '../fixtures.js';

type Obj = Record<string, unknown>;

async function namesOf(b: Backend, path: string): Promise<string[]> {
  const reply = await b.request('GET', path);
  assert.equal(reply.code, 200, reply.text);
  return (reply.json['items'] as Obj[]).map((o) => String(field(o, 'metadata', 'name'))).sort();
}

const q = (s: string) => encodeURIComponent(s);

const leasePath = (ns: string) => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;

/** Leases l1–l3, a first page of two, then l4 created and l3 changed: the second page. */
async function nextPageAfterWrites(b: Backend): Promise<Obj[]> {
  const ns = await b.namespace();
  for (const name of ['l1', 'l2', 'l3']) {
    await b.request('POST', leasePath(ns), { body: { metadata: { name }, spec: {} } });
  }
  const first = await b.request('GET', `${leasePath(ns)}?limit=2`);
  const token = String(field(first.json, 'metadata', 'continue'));
  await b.request('POST', leasePath(ns), { body: { metadata: { name: 'l4' }, spec: {} } });
  await b.request('PATCH', `${leasePath(ns)}/l3`, {
    contentType: MERGE,
    body: { spec: { holderIdentity: 'changed' } },
  });
  const next = await b.request('GET', `${leasePath(ns)}?limit=2&continue=${q(token)}`);
  assert.equal(next.code, 200, next.text);
  return next.json['items'] as Obj[];
}

export const listCases: CaseGroup = {
  name: 'Field and label selectors, pagination',
  cases: [
    {
      id: 'field selector spec.nodeName (=, !=, empty) and metadata.name on pods',
      async run(b) {
        const ns = await b.namespace();
        const [n1, n2] = [b.unique('n1'), b.unique('n2')];
        await createPod(b, ns, 'a', { spec: { nodeName: n1 } });
        await createPod(b, ns, 'b', { spec: { nodeName: n2 } });
        await createPod(b, ns, 'c');
        const pods = podPath(ns);
        assert.deepEqual(await namesOf(b, `${pods}?fieldSelector=${q(`spec.nodeName=${n1}`)}`), [
          'a',
        ]);
        assert.deepEqual(
          await namesOf(b, `/api/v1/pods?fieldSelector=${q(`spec.nodeName=${n2}`)}`),
          ['b'],
        );
        assert.deepEqual(await namesOf(b, `${pods}?fieldSelector=${q(`spec.nodeName!=${n1}`)}`), [
          'b',
          'c',
        ]);
        assert.deepEqual(await namesOf(b, `${pods}?fieldSelector=${q('spec.nodeName=')}`), ['c']);
        assert.deepEqual(
          await namesOf(b, `${pods}?fieldSelector=${q(`metadata.name=a,spec.nodeName=${n1}`)}`),
          ['a'],
        );
        assert.deepEqual(await namesOf(b, `${pods}?fieldSelector=${q('metadata.name=zzz')}`), []);
      },
    },
    {
      id: 'field selector spec.unschedulable on nodes',
      async run(b) {
        const node = await fakeNode(b);
        const cordoned = await fakeNode(b, { unschedulable: true });
        const both = [node, cordoned];
        const pick = (names: string[]) => names.filter((n) => both.includes(n));
        assert.deepEqual(
          pick(await namesOf(b, `/api/v1/nodes?fieldSelector=${q('spec.unschedulable=true')}`)),
          [cordoned],
        );
        assert.deepEqual(
          pick(await namesOf(b, `/api/v1/nodes?fieldSelector=${q('spec.unschedulable=false')}`)),
          [node],
        );
      },
    },
    {
      id: 'an unsupported field selector is 400 "field label not supported"',
      async run(b) {
        for (const path of ['/api/v1/pods', '/api/v1/nodes']) {
          assertStatus(await b.request('GET', `${path}?fieldSelector=${q('spec.foo=x')}`), {
            code: 400,
            reason: 'BadRequest',
            message: 'field label not supported: spec.foo',
          });
        }
      },
    },
    {
      id: 'label selectors: =, !=, in, notin, exists, !exists (absent keys match != and notin)',
      async run(b) {
        const ns = await b.namespace();
        await createPod(b, ns, 'web', { labels: { app: 'web', tier: 'front' } });
        await createPod(b, ns, 'db', { labels: { app: 'db' } });
        await createPod(b, ns, 'bare');
        const sel = async (s: string) => namesOf(b, `${podPath(ns)}?labelSelector=${q(s)}`);
        assert.deepEqual(await sel('app=web'), ['web']);
        assert.deepEqual(await sel('app!=web'), ['bare', 'db']);
        assert.deepEqual(await sel('app in (web,db)'), ['db', 'web']);
        assert.deepEqual(await sel('app notin (web)'), ['bare', 'db']);
        assert.deepEqual(await sel('tier'), ['web']);
        assert.deepEqual(await sel('!tier'), ['bare', 'db']);
        assert.deepEqual(await sel('app,!tier'), ['db']);
        const bad = await b.request('GET', `${podPath(ns)}?labelSelector=${q('app in (web')}`);
        assert.equal(bad.code, 400, bad.text);
        assert.equal(bad.json['reason'], 'BadRequest');
        assert.match(String(bad.json['message']), /unable to parse requirement/);
      },
    },
    {
      id: 'limit/continue pages in name order; remainingItemCount counts what follows (no selector only)',
      async run(b) {
        const ns = await b.namespace();
        for (const name of ['l1', 'l2', 'l3', 'l4', 'l5']) {
          const reply = await b.request('POST', leasePath(ns), {
            body: { metadata: { name, labels: { set: 'all' } }, spec: { holderIdentity: name } },
          });
          assert.equal(reply.code, 201, reply.text);
        }
        const seen: string[] = [];
        const remaining: unknown[] = [];
        let token = '';
        let rv: unknown;
        do {
          const reply = await b.request(
            'GET',
            `${leasePath(ns)}?limit=2${token ? `&continue=${q(token)}` : ''}`,
          );
          assert.equal(reply.code, 200, reply.text);
          const m = reply.json['metadata'] as Obj;
          rv ??= m['resourceVersion'];
          // Every page is served at the resourceVersion of the first one (a consistent snapshot).
          assert.equal(m['resourceVersion'], rv);
          seen.push(
            ...(reply.json['items'] as Obj[]).map((o) => String(field(o, 'metadata', 'name'))),
          );
          remaining.push(m['remainingItemCount']);
          token = typeof m['continue'] === 'string' ? m['continue'] : '';
        } while (token);
        assert.deepEqual(seen, ['l1', 'l2', 'l3', 'l4', 'l5']);
        assert.deepEqual(remaining, [3, 1, undefined]);
        const selected = await b.request('GET', `${leasePath(ns)}?limit=2&labelSelector=set%3Dall`);
        const m = selected.json['metadata'] as Obj;
        assert.ok(m['continue'], 'a selected list pages too');
        assert.equal(m['remainingItemCount'], undefined, 'unknown with a selector');
      },
    },
    {
      id: 'a continue token keeps its snapshot: later writes do not show on the next page',
      async run(b) {
        const items = await nextPageAfterWrites(b);
        assert.deepEqual(
          items.map((o) => field(o, 'metadata', 'name')),
          ['l3'],
        );
        assert.equal(field(items[0], 'spec', 'holderIdentity'), undefined);
      },
      simDiffers: {
        reason:
          'the sim pages over the live store: a continue token keeps its position, not a snapshot of the objects',
        async run(b) {
          const items = await nextPageAfterWrites(b);
          assert.deepEqual(
            items.map((o) => [field(o, 'metadata', 'name'), field(o, 'spec', 'holderIdentity')]),
            [
              ['l3', 'changed'],
              ['l4', undefined],
            ],
          );
        },
      },
    },
    {
      id: 'a continue token that is not one is 400 BadRequest',
      async run(b) {
        const ns = await b.namespace();
        const reply = await b.request('GET', `${leasePath(ns)}?limit=1&continue=garbage`);
        assertStatus(reply, { code: 400, reason: 'BadRequest', message: /continue/ });
      },
    },
  ],
};
