/**
 * The API server's pure parts, without a server: fault decisions (seeded, per route and verb) and the
 * three patch algorithms.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FaultInjector, validateFaults, type FaultRequest } from '../../src/api/faults.js';
import { jsonPatch, mergePatch, strategicMergePatch } from '../../src/api/patch.js';
import { StatusError } from '../../src/types.js';

const req = (over: Partial<FaultRequest> = {}): FaultRequest => ({
  resource: 'pods',
  subresource: undefined,
  verb: 'list',
  namespace: 'default',
  name: undefined,
  ...over,
});

describe('fault injection', () => {
  it('matches by resource, subresource and verb', () => {
    const f = new FaultInjector([
      { resource: 'pods/eviction', verb: 'create', error: 429, retryAfterSeconds: 4 },
    ]);
    assert.equal(f.decide(req({ verb: 'create' })).error, undefined);
    const hit = f.decide(req({ verb: 'create', subresource: 'eviction', name: 'p' })).error;
    assert.ok(hit instanceof StatusError);
    assert.deepEqual([hit.code, hit.reason, hit.retryAfterSeconds], [429, 'TooManyRequests', 4]);
  });

  it('the same seed gives the same failure pattern, and the rate is roughly honoured', () => {
    const pattern = (seed: number) => {
      const f = new FaultInjector([{ error: 500, rate: 0.3 }], seed);
      return Array.from({ length: 200 }, () => (f.decide(req()).error ? 1 : 0)).join('');
    };
    assert.equal(pattern(42), pattern(42));
    assert.notEqual(pattern(42), pattern(43));
    const failures = [...pattern(42)].filter((c) => c === '1').length;
    assert.ok(failures > 30 && failures < 90, `${failures} of 200 failed at rate 0.3`);
  });

  it('retires a rule after `times` firings and adds latency from every matching rule', () => {
    const f = new FaultInjector([
      { verb: 'get', error: 409, times: 2 },
      { latencyMs: 5 },
      { resource: 'pods', latencyMs: 7 },
    ]);
    const codes = [1, 2, 3].map(() => f.decide(req({ verb: 'get', name: 'x' })).error?.code);
    assert.deepEqual(codes, [409, 409, undefined]);
    assert.equal(f.decide(req()).latencyMs, 12);
  });

  it('drops only watches', () => {
    const f = new FaultInjector([{ dropWatchAfterMs: 10 }]);
    assert.equal(f.decide(req({ verb: 'list' })).dropWatchAfterMs, undefined);
    assert.equal(f.decide(req({ verb: 'watch' })).dropWatchAfterMs, 10);
  });

  const bad = [
    { input: { verb: 'get' }, why: /array of rules/ },
    { input: [{ verb: 'fly' }], why: /faults\[0\]: verb "fly"/ },
    { input: [{}, { error: 418 }], why: /faults\[1\]: error 418 must be 500, 429 or 409/ },
    { input: [{ rate: 2 }], why: /rate must be between 0 and 1/ },
  ];
  for (const b of bad) {
    it(`rejects ${JSON.stringify(b.input)}`, () => {
      assert.throws(() => validateFaults(b.input), b.why);
    });
  }
});

describe('patches', () => {
  const merges = [
    {
      target: { a: 1, b: { c: 2, d: 3 } },
      patch: { b: { c: null, e: 4 } },
      want: { a: 1, b: { d: 3, e: 4 } },
    },
    { target: { list: [1, 2] }, patch: { list: [3] }, want: { list: [3] } },
    { target: { a: 1 }, patch: { a: null }, want: {} },
  ];
  for (const m of merges) {
    it(`merge patch ${JSON.stringify(m.patch)}`, () =>
      assert.deepEqual(mergePatch(m.target, m.patch), m.want));
  }

  const strategic = [
    {
      why: 'conditions merge by type',
      target: {
        status: {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'X', status: 'True' },
          ],
        },
      },
      patch: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      want: {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'X', status: 'True' },
          ],
        },
      },
    },
    {
      why: 'taints have no merge key and are replaced',
      target: { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] } },
      patch: { spec: { taints: [{ key: 'b', effect: 'NoExecute' }] } },
      want: { spec: { taints: [{ key: 'b', effect: 'NoExecute' }] } },
    },
    {
      why: '$patch: replace on a map',
      target: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      patch: { spec: { strategy: { $patch: 'replace', type: 'Recreate' } } },
      want: { spec: { strategy: { type: 'Recreate' } } },
    },
    {
      why: '$retainKeys drops the keys not listed',
      target: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      want: { spec: { strategy: { type: 'Recreate' } } },
    },
    {
      why: 'null deletes (uncordon)',
      target: { spec: { unschedulable: true, podCIDR: 'x' } },
      patch: { spec: { unschedulable: null } },
      want: { spec: { podCIDR: 'x' } },
    },
  ];
  for (const s of strategic) {
    it(`strategic merge: ${s.why}`, () =>
      assert.deepEqual(strategicMergePatch(s.target, s.patch), s.want));
  }

  it('JSON patch: add/replace/remove/move/copy/test, escaped pointers', () => {
    const doc = { metadata: { labels: { 'kubemaint.io/state': 'running' } }, list: [1, 2] };
    const out = jsonPatch(doc, [
      { op: 'test', path: '/metadata/labels/kubemaint.io~1state', value: 'running' },
      { op: 'replace', path: '/metadata/labels/kubemaint.io~1state', value: 'done' },
      { op: 'add', path: '/list/-', value: 3 },
      { op: 'copy', from: '/list/0', path: '/first' },
      { op: 'move', from: '/first', path: '/moved' },
      { op: 'remove', path: '/list/1' },
    ]);
    assert.deepEqual(out, {
      metadata: { labels: { 'kubemaint.io/state': 'done' } },
      list: [1, 3],
      moved: 1,
    });
    assert.deepEqual(doc.list, [1, 2], 'the input is not modified');
  });

  const jsonFailures = [
    { ops: [{ op: 'remove', path: '/nope' }], code: 422 },
    { ops: [{ op: 'replace', path: '/a/b', value: 1 }], code: 422 },
    { ops: [{ op: 'test', path: '/a', value: 2 }], code: 422 },
    { ops: [{ op: 'launch', path: '/a' }], code: 400 },
    { ops: { op: 'add' }, code: 400 },
  ];
  for (const f of jsonFailures) {
    it(`JSON patch ${JSON.stringify(f.ops)} fails with ${f.code}`, () => {
      assert.throws(
        () => jsonPatch({ a: 1 }, f.ops),
        (e) => e instanceof StatusError && e.code === f.code,
      );
    });
  }
});
