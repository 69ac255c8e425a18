import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStore } from '../../src/store.js';
import { R, StatusError, type KObject, type Store, type WatchEvent } from '../../src/types.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');

function setup(options: { historyLimit?: number } = {}) {
  let clock = T0.getTime();
  const store = createStore({ now: () => new Date(clock), ...options });
  store.create(R.namespaces, { metadata: { name: 'default' } });
  return { store, advance: (ms: number) => (clock += ms) };
}

const pod = (name: string, extra: Partial<KObject['spec']> = {}, labels?: Record<string, string>) =>
  ({
    metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...extra },
  }) as KObject;

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof StatusError, `expected StatusError, got ${String(error)}`);
    return { code: error.code, reason: error.reason, message: error.message };
  }
  assert.fail('expected the call to throw');
}

describe('store: create', () => {
  it('fills uid, resourceVersion, generation, creationTimestamp, kind and apiVersion', () => {
    const { store } = setup();
    const created = store.create(R.pods, pod('p1'));
    assert.match(created.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(created.metadata.resourceVersion, '2');
    assert.equal(created.metadata.generation, 1);
    assert.equal(created.metadata.creationTimestamp, '2026-03-01T10:00:00Z');
    assert.equal(created.kind, 'Pod');
    assert.equal(created.apiVersion, 'v1');
    assert.equal((created.status as { phase: string }).phase, 'Pending');
  });

  it('uses one global resourceVersion across resources', () => {
    const { store } = setup();
    const a = store.create(R.configmaps, { metadata: { name: 'a', namespace: 'default' } });
    const b = store.create(R.nodes, { metadata: { name: 'n1' } });
    assert.equal(Number(b.metadata.resourceVersion), Number(a.metadata.resourceVersion) + 1);
    assert.equal(store.resourceVersion(), b.metadata.resourceVersion);
  });

  const failures = [
    {
      why: 'a duplicate name is AlreadyExists',
      run: (s: Store) => (s.create(R.pods, pod('p1')), s.create(R.pods, pod('p1'))),
      code: 409,
      reason: 'AlreadyExists',
      message: 'pods "p1" already exists',
    },
    {
      why: 'a missing namespace is NotFound',
      run: (s: Store) =>
        s.create(R.pods, { ...pod('p1'), metadata: { name: 'p1', namespace: 'nope' } }),
      code: 404,
      reason: 'NotFound',
      message: 'namespaces "nope" not found',
    },
    {
      why: 'a bad name is Invalid',
      run: (s: Store) => s.create(R.nodes, { metadata: { name: 'Bad_Name' } }),
      code: 422,
      reason: 'Invalid',
      message: 'Node "Bad_Name" is invalid: metadata.name: Invalid value',
    },
    {
      why: 'a Job with restartPolicy Always is Invalid',
      run: (s: Store) =>
        s.create(R.jobs, {
          metadata: { name: 'j', namespace: 'default' },
          spec: { template: { spec: { restartPolicy: 'Always', containers: [] } } },
        }),
      code: 422,
      reason: 'Invalid',
      message:
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    },
    {
      why: 'a Lease renewTime with 3 fractional digits is a BadRequest',
      run: (s: Store) =>
        s.create(R.leases, {
          metadata: { name: 'l', namespace: 'default' },
          spec: { renewTime: '2026-03-01T10:00:00.123Z' },
        }),
      code: 400,
      reason: 'BadRequest',
      message: 'spec.renewTime: parsing time',
    },
    {
      why: 'an unknown resource is NotFound',
      run: (s: Store) => s.create('widgets.example.com', { metadata: { name: 'w' } }),
      code: 404,
      reason: 'NotFound',
      message: 'could not find the requested resource',
    },
  ];
  for (const f of failures) {
    it(f.why, () => {
      const { store } = setup();
      const status = statusOf(() => f.run(store));
      assert.equal(status.code, f.code);
      assert.equal(status.reason, f.reason);
      assert.ok(status.message.includes(f.message), status.message);
    });
  }

  it('generateName appends 5 characters from the apiserver alphabet', () => {
    const { store } = setup();
    const created = store.create(R.pods, {
      ...pod('x'),
      metadata: { generateName: 'web-', namespace: 'default' },
    });
    assert.match(created.metadata.name ?? '', /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('generates a Job selector and pod template labels from the uid', () => {
    const { store } = setup();
    const job = store.create(R.jobs, {
      metadata: { name: 'j', namespace: 'default' },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    const spec = job.spec as {
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> } };
      backoffLimit: number;
    };
    assert.equal(spec.selector.matchLabels['batch.kubernetes.io/controller-uid'], job.metadata.uid);
    assert.equal(spec.template.metadata.labels['job-name'], 'j');
    assert.equal(spec.backoffLimit, 6);
  });

  it('dryRun returns the object but stores nothing and bumps nothing', () => {
    const { store } = setup();
    const before = store.resourceVersion();
    const result = store.create(R.pods, pod('p1'), { dryRun: true });
    assert.equal(result.metadata.name, 'p1');
    assert.equal(store.get(R.pods, 'default', 'p1'), undefined);
    assert.equal(store.resourceVersion(), before);
  });
});

describe('store: update and mutate', () => {
  it('a stale resourceVersion is a Conflict with the optimistic-lock message', () => {
    const { store } = setup();
    const first = store.create(R.nodes, { metadata: { name: 'n1' } });
    store.update(R.nodes, { ...first, metadata: { ...first.metadata, labels: { a: 'b' } } });
    const status = statusOf(() =>
      store.update(R.nodes, { ...first, spec: { unschedulable: true } }),
    );
    assert.equal(status.code, 409);
    assert.equal(status.reason, 'Conflict');
    assert.equal(
      status.message,
      'Operation cannot be fulfilled on nodes "n1": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('Leases refuse unconditional updates (422) and are created on update', () => {
    const { store } = setup();
    const made = store.update(R.leases, {
      metadata: { name: 'l', namespace: 'default' },
      spec: { holderIdentity: 'a' },
    });
    assert.equal(made.kind, 'Lease');
    const status = statusOf(() =>
      store.update(R.leases, { metadata: { name: 'l', namespace: 'default' }, spec: {} }),
    );
    assert.equal(status.code, 422);
    assert.ok(
      status.message.includes(
        'leases.coordination.k8s.io "l" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
      ),
    );
  });

  it('bumps generation on spec changes only, and a no-op write changes nothing', () => {
    const { store } = setup();
    const n = store.create(R.nodes, { metadata: { name: 'n1' }, spec: {} });
    const labelled = store.mutate(
      R.nodes,
      undefined,
      'n1',
      (o) => (o.metadata.labels = { x: 'y' }),
    )!;
    assert.equal(labelled.metadata.generation, 1);
    const cordoned = store.mutate(
      R.nodes,
      undefined,
      'n1',
      (o) => (o.spec = { unschedulable: true }),
    )!;
    assert.equal(cordoned.metadata.generation, 2);
    const rv = store.resourceVersion();
    const same = store.mutate(R.nodes, undefined, 'n1', () => {})!;
    assert.equal(same.metadata.resourceVersion, rv);
    assert.equal(store.resourceVersion(), rv);
    assert.notEqual(n.metadata.resourceVersion, cordoned.metadata.resourceVersion);
  });

  it('the status subresource writes only the status', () => {
    const { store } = setup();
    const n = store.create(R.nodes, { metadata: { name: 'n1' }, spec: { unschedulable: false } });
    const after = store.update(
      R.nodes,
      { ...n, spec: { unschedulable: true }, status: { phase: 'Running' } },
      { subresource: 'status' },
    );
    assert.deepEqual(after.spec, { unschedulable: false });
    assert.deepEqual(after.status, { phase: 'Running' });
    assert.equal(store.audit().at(-1)?.subresource, 'status');
  });

  it('creationTimestamp cannot be changed by an update, and a different uid is a precondition that fails', () => {
    const { store } = setup();
    const n = store.create(R.nodes, { metadata: { name: 'n1' } });
    const after = store.update(R.nodes, {
      ...n,
      metadata: { ...n.metadata, creationTimestamp: '1999-01-01T00:00:00Z', labels: { a: 'b' } },
    });
    assert.equal(after.metadata.uid, n.metadata.uid);
    assert.equal(after.metadata.creationTimestamp, n.metadata.creationTimestamp);
    assert.throws(
      () => store.update(R.nodes, { ...after, metadata: { ...after.metadata, uid: 'x' } }),
      (e: StatusError) =>
        e.code === 409 &&
        e.message.includes(
          `Precondition failed: UID in precondition: x, UID in object meta: ${n.metadata.uid}`,
        ),
    );
  });

  it('mutate returns undefined for a missing object and get returns copies', () => {
    const { store } = setup();
    assert.equal(
      store.mutate(R.nodes, undefined, 'ghost', () => {}),
      undefined,
    );
    store.create(R.nodes, { metadata: { name: 'n1' } });
    const copy = store.get(R.nodes, undefined, 'n1')!;
    copy.metadata.labels = { changed: 'yes' };
    assert.equal(store.get(R.nodes, undefined, 'n1')!.metadata.labels, undefined);
  });
});

describe('store: delete', () => {
  it('a scheduled pod is deleted gracefully: deletionTimestamp now+grace, then removed with grace 0', () => {
    const { store } = setup();
    store.create(R.pods, pod('p1', { nodeName: 'n1', terminationGracePeriodSeconds: 30 }));
    const marked = store.delete(R.pods, 'default', 'p1')!;
    assert.equal(marked.metadata.deletionTimestamp, '2026-03-01T10:00:30Z');
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 30);
    assert.ok(store.get(R.pods, 'default', 'p1'));
    const longer = store.delete(R.pods, 'default', 'p1', { gracePeriodSeconds: 60 })!;
    assert.equal(
      longer.metadata.deletionTimestamp,
      '2026-03-01T10:00:30Z',
      'only shortening applies',
    );
    const shorter = store.delete(R.pods, 'default', 'p1', { gracePeriodSeconds: 5 })!;
    assert.equal(shorter.metadata.deletionTimestamp, '2026-03-01T10:00:05Z');
    store.delete(R.pods, 'default', 'p1', { gracePeriodSeconds: 0 });
    assert.equal(store.get(R.pods, 'default', 'p1'), undefined);
  });

  it('an unscheduled pod and other kinds go at once', () => {
    const { store } = setup();
    store.create(R.pods, pod('p1'));
    store.delete(R.pods, 'default', 'p1');
    assert.equal(store.get(R.pods, 'default', 'p1'), undefined);
    store.create(R.configmaps, { metadata: { name: 'c', namespace: 'default' } });
    store.delete(R.configmaps, 'default', 'c', { gracePeriodSeconds: 30 });
    assert.equal(store.get(R.configmaps, 'default', 'c'), undefined);
  });

  it('preconditions on uid and resourceVersion are Conflicts when they do not match', () => {
    const { store } = setup();
    const p = store.create(R.pods, pod('p1'));
    const byUid = statusOf(() =>
      store.delete(R.pods, 'default', 'p1', { preconditions: { uid: 'other' } }),
    );
    assert.equal(byUid.code, 409);
    assert.ok(
      byUid.message.includes(
        `Operation cannot be fulfilled on Pod "p1": the UID in the precondition (other) does not match the UID in record (${p.metadata.uid})`,
      ),
    );
    const byRv = statusOf(() =>
      store.delete(R.pods, 'default', 'p1', { preconditions: { resourceVersion: '1' } }),
    );
    assert.equal(byRv.reason, 'Conflict');
    store.delete(R.pods, 'default', 'p1', {
      preconditions: { uid: p.metadata.uid!, resourceVersion: p.metadata.resourceVersion! },
    });
    assert.equal(store.get(R.pods, 'default', 'p1'), undefined);
  });

  it('finalizers hold the object until the last one is removed', () => {
    const { store } = setup();
    store.create(R.configmaps, {
      metadata: { name: 'c', namespace: 'default', finalizers: ['x/y'] },
    });
    const marked = store.delete(R.configmaps, 'default', 'c')!;
    assert.ok(marked.metadata.deletionTimestamp);
    store.mutate(R.configmaps, 'default', 'c', (o) => (o.metadata.finalizers = []));
    assert.equal(store.get(R.configmaps, 'default', 'c'), undefined);
    assert.equal(store.audit().at(-1)?.verb, 'update');
  });

  it('records the propagation policy, Orphan by default for Jobs', () => {
    const { store } = setup();
    const events: WatchEvent[] = [];
    store.watch(R.jobs, (e) => events.push(e));
    const job = {
      metadata: { name: 'j', namespace: 'default' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [] } } },
    };
    store.create(R.jobs, job);
    store.delete(R.jobs, 'default', 'j');
    store.create(R.jobs, job);
    store.delete(R.jobs, 'default', 'j', { propagationPolicy: 'Background' });
    const deleted = events.filter((e) => e.type === 'DELETED').map((e) => e.propagationPolicy);
    assert.deepEqual(deleted, ['Orphan', 'Background']);
    assert.equal(store.audit().at(-1)?.propagationPolicy, 'Background');
  });

  it('deleting a namespace removes its contents; deleting a missing object is NotFound', () => {
    const { store } = setup();
    store.create(R.namespaces, { metadata: { name: 'team' } });
    store.create(R.configmaps, { metadata: { name: 'c', namespace: 'team' } });
    store.delete(R.namespaces, undefined, 'team');
    assert.deepEqual(store.list(R.configmaps), []);
    assert.equal(statusOf(() => store.delete(R.pods, 'default', 'nope')).code, 404);
  });

  it('dryRun delete changes nothing', () => {
    const { store } = setup();
    store.create(R.pods, pod('p1', { nodeName: 'n1' }));
    const result = store.delete(R.pods, 'default', 'p1', { dryRun: true })!;
    assert.ok(result.metadata.deletionTimestamp);
    assert.equal(store.get(R.pods, 'default', 'p1')!.metadata.deletionTimestamp, undefined);
  });
});

describe('store: list', () => {
  function fill(store: Store) {
    store.create(R.namespaces, { metadata: { name: 'kube-system' } });
    for (let i = 0; i < 12; i++) {
      store.create(
        R.pods,
        pod(
          `p${String(i).padStart(2, '0')}`,
          { nodeName: i % 2 ? 'n1' : 'n2' },
          { app: i < 4 ? 'web' : 'db' },
        ),
      );
    }
    store.create(R.pods, {
      ...pod('sys'),
      metadata: { name: 'sys', namespace: 'kube-system', labels: { app: 'web' } },
    });
  }

  const selections = [
    { opts: { labelSelector: 'app=web' }, want: ['p00', 'p01', 'p02', 'p03', 'sys'] },
    {
      opts: { labelSelector: 'app=web', namespace: 'default' },
      want: ['p00', 'p01', 'p02', 'p03'],
    },
    {
      opts: { fieldSelector: 'spec.nodeName=n1', labelSelector: 'app in (web)' },
      want: ['p01', 'p03'],
    },
    { opts: { fieldSelector: 'metadata.namespace=kube-system' }, want: ['sys'] },
    { opts: { fieldSelector: 'metadata.name=p05' }, want: ['p05'] },
    { opts: { fieldSelector: 'status.phase!=Pending' }, want: [] },
    { opts: { labelSelector: '!app' }, want: [] },
  ];
  for (const s of selections) {
    it(`selects ${JSON.stringify(s.opts)}`, () => {
      const { store } = setup();
      fill(store);
      assert.deepEqual(
        store.list(R.pods, s.opts).map((p) => p.metadata.name),
        s.want,
      );
    });
  }

  it('an unsupported field is a 400 naming it', () => {
    const { store } = setup();
    const status = statusOf(() => store.list(R.pods, { fieldSelector: 'spec.foo=x' }));
    assert.equal(status.code, 400);
    assert.equal(status.message, 'field label not supported: spec.foo');
  });

  it('pages with limit/continue in key order and ends without a token', () => {
    const { store } = setup();
    fill(store);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = store.listPage(R.pods, { limit: 3, ...(token ? { continue: token } : {}) });
      seen.push(...page.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`));
      token = page.continue;
      pages++;
      assert.equal(page.resourceVersion, store.resourceVersion());
    } while (token);
    assert.equal(pages, 5);
    assert.equal(seen.length, 13);
    assert.deepEqual(seen, [...seen].sort());
  });

  it('a continue token older than the history window is 410 Expired; garbage is 400', () => {
    const { store } = setup({ historyLimit: 5 });
    fill(store);
    const page = store.listPage(R.pods, { limit: 2 });
    for (let i = 0; i < 10; i++)
      store.create(R.configmaps, { metadata: { name: `c${i}`, namespace: 'default' } });
    const status = statusOf(() => store.listPage(R.pods, { limit: 2, continue: page.continue! }));
    assert.equal(status.code, 410);
    assert.equal(status.reason, 'Expired');
    assert.equal(statusOf(() => store.listPage(R.pods, { continue: 'nonsense' })).code, 400);
  });
});

describe('store: watch', () => {
  it('delivers ADDED, MODIFIED, DELETED with the deletion resourceVersion, as copies', () => {
    const { store } = setup();
    const events: WatchEvent[] = [];
    store.watch(R.nodes, (e) => {
      events.push(e);
      e.object.metadata.labels = { mutated: 'by handler' };
    });
    store.create(R.nodes, { metadata: { name: 'n1' } });
    store.mutate(R.nodes, undefined, 'n1', (o) => (o.spec = { unschedulable: true }));
    store.delete(R.nodes, undefined, 'n1');
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    assert.equal(events[2]!.object.metadata.resourceVersion, store.resourceVersion());
    assert.equal(store.audit().at(-1)!.object.metadata.labels, undefined);
  });

  it('writes made inside a handler reach every handler in resourceVersion order', () => {
    const { store } = setup();
    store.watch(R.nodes, (e) => {
      if (e.type === 'ADDED')
        store.mutate(
          R.nodes,
          undefined,
          e.object.metadata.name!,
          (o) => (o.metadata.labels = { seen: 'y' }),
        );
    });
    const order: string[] = [];
    store.watch(R.nodes, (e) => order.push(`${e.type}@${e.object.metadata.resourceVersion}`));
    store.create(R.nodes, { metadata: { name: 'n1' } });
    assert.deepEqual(order, ['ADDED@2', 'MODIFIED@3']);
  });

  it('a throwing handler is reported and does not stop the write or other handlers', () => {
    const errors: unknown[] = [];
    const store = createStore({ now: () => T0, onHandlerError: (e) => errors.push(e) });
    let delivered = 0;
    store.watch(R.nodes, () => {
      throw new Error('boom');
    });
    store.watch(R.nodes, () => delivered++);
    store.create(R.nodes, { metadata: { name: 'n1' } });
    assert.equal(delivered, 1);
    assert.equal(errors.length, 1);
  });

  it('watchFrom replays retained events after a resourceVersion, then follows live ones', () => {
    const { store } = setup();
    const a = store.create(R.nodes, { metadata: { name: 'a' } });
    store.create(R.configmaps, { metadata: { name: 'c', namespace: 'default' } });
    store.create(R.nodes, { metadata: { name: 'b' } });
    const names: string[] = [];
    const stop = store.watchFrom(R.nodes, a.metadata.resourceVersion, (e) =>
      names.push(`${e.type}:${e.object.metadata.name}`),
    );
    store.create(R.nodes, { metadata: { name: 'c' } });
    stop();
    store.create(R.nodes, { metadata: { name: 'd' } });
    assert.deepEqual(names, ['ADDED:b', 'ADDED:c']);
  });

  it('watchFrom an RV older than the window is 410 Expired with the apiserver message', () => {
    const { store } = setup({ historyLimit: 3 });
    for (let i = 0; i < 6; i++) store.create(R.nodes, { metadata: { name: `n${i}` } });
    const status = statusOf(() => store.watchFrom(R.nodes, '1', () => {}));
    assert.equal(status.code, 410);
    assert.match(status.message, /^too old resource version: 1 \(\d+\)$/);
  });

  it('audit records every write with actor, verb and sim time', () => {
    const { store, advance } = setup();
    advance(5000);
    store.create(R.nodes, { metadata: { name: 'n1' } }, { actor: 'kubelet/n1' });
    store.mutate(R.nodes, undefined, 'n1', (o) => (o.metadata.labels = { a: 'b' }), {
      actor: 'http:kubectl',
      verb: 'patch',
    });
    const tail = store
      .audit()
      .slice(-2)
      .map((e) => [e.verb, e.actor, e.at, e.name]);
    assert.deepEqual(tail, [
      ['create', 'kubelet/n1', '2026-03-01T10:00:05.000Z', 'n1'],
      ['patch', 'http:kubectl', '2026-03-01T10:00:05.000Z', 'n1'],
    ]);
  });
});

describe('store: copies and indexes', () => {
  it('stores JSON: Dates become RFC 3339 strings and undefined fields disappear', () => {
    const { store } = setup();
    const created = store.create(R.configmaps, {
      metadata: { name: 'c', namespace: 'default', annotations: undefined },
      data: {
        at: new Date('2026-01-02T03:04:05.000Z') as unknown as string,
        gone: undefined as unknown as string,
      },
    });
    assert.deepEqual(created['data'], { at: '2026-01-02T03:04:05.000Z' });
    assert.equal('annotations' in created.metadata, false);
  });

  it('the spec.nodeName index follows rebinding and deletion', () => {
    const { store } = setup();
    store.create(R.pods, pod('a', { nodeName: 'n1' }));
    store.create(R.pods, pod('b', { nodeName: 'n1' }));
    store.create(R.pods, pod('c'));
    const on = (node: string) =>
      store.list(R.pods, { fieldSelector: `spec.nodeName=${node}` }).map((p) => p.metadata.name);
    assert.deepEqual(on('n1'), ['a', 'b']);
    assert.deepEqual(on(''), ['c']);
    store.mutate(R.pods, 'default', 'b', (p) => (p.spec = { ...p.spec, nodeName: 'n2' }));
    store.delete(R.pods, 'default', 'a', { gracePeriodSeconds: 0 });
    assert.deepEqual(on('n1'), []);
    assert.deepEqual(on('n2'), ['b']);
    const paged = store.listPage(R.pods, { fieldSelector: 'spec.nodeName!=n9', limit: 1 });
    assert.equal(paged.items.length, 1);
    assert.ok(paged.continue);
  });

  it('lists stay in key order after out-of-order creates and deletes (lazy sorting)', () => {
    const { store } = setup();
    for (const name of ['n5', 'n1', 'n9', 'n3']) store.create(R.nodes, { metadata: { name } });
    store.delete(R.nodes, undefined, 'n9');
    store.create(R.nodes, { metadata: { name: 'n0' } });
    store.create(R.nodes, { metadata: { name: 'n9' } });
    assert.deepEqual(
      store.list(R.nodes).map((n) => n.metadata.name),
      ['n0', 'n1', 'n3', 'n5', 'n9'],
    );
  });
});

describe('store: event field selectors', () => {
  it('selects core/v1 events by involvedObject and events.k8s.io events by regarding', () => {
    const { store } = setup();
    const event = (name: string, node: string) => ({
      metadata: { name, namespace: 'default' },
      involvedObject: { kind: 'Node', name: node },
      reason: 'RebootScheduled',
      type: 'Normal',
    });
    store.create(R.events, event('e1', 'n1'));
    store.create(R.events, event('e2', 'n2'));
    const picked = store.list(R.events, {
      fieldSelector: 'involvedObject.kind=Node,involvedObject.name=n2',
    });
    assert.deepEqual(
      picked.map((e) => e.metadata.name),
      ['e2'],
    );
    store.create(R.eventsV1, {
      metadata: { name: 'v1', namespace: 'default' },
      eventTime: '2026-03-01T10:00:00.000000Z',
      reportingController: 'kubemaint.io/control',
      reportingInstance: 'x',
      action: 'Drain',
      reason: 'Drained',
      type: 'Normal',
      regarding: { kind: 'Node', name: 'n1' },
    });
    // One store behind both APIs (as in kube-apiserver): the core/v1 e1 is also an events.k8s.io Event.
    assert.deepEqual(
      store.list(R.eventsV1, { fieldSelector: 'regarding.name=n1' }).map((e) => e.metadata.name),
      ['e1', 'v1'],
    );
    assert.throws(
      () =>
        store.create(R.eventsV1, {
          metadata: { name: 'bad', namespace: 'default' },
          eventTime: '2026-03-01T10:00:00Z',
        }),
      /parsing time/,
    );
  });
});
