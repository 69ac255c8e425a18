/**
 * The field manager's parts: FieldsV1 as kube-apiserver writes it, keyed-list merges in
 * structured-merge-diff's order, and the multi-conflict message (the single one is a conformance
 * case on both backends).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet, pathText } from '../../src/managed-fields/field-set.js';
import { applyConfig, type FieldWrite } from '../../src/managed-fields/managers.js';
import { typeOf, type TypeNode } from '../../src/managed-fields/schema.js';
import { merge, toFieldSet } from '../../src/managed-fields/typed.js';

const none = () => undefined;
const keyed: TypeNode = typeOf({
  node: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'string' } } },
      },
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      args: { type: 'array', items: { type: 'string' } },
    },
  },
  resolve: none,
});

const write = (manager: string): FieldWrite => ({
  manager,
  apiVersion: 'v1',
  subresource: undefined,
  hasStatus: false,
  type: keyed,
  now: '2026-01-01T00:00:00Z',
});

describe('managed fields', () => {
  it('FieldsV1: members with children are marked ".", and read back the same', () => {
    const set = toFieldSet({ items: [{ name: 'a', v: '1' }], tags: ['x'], args: ['--y'] }, keyed);
    const fields = set.toFieldsV1();
    assert.deepEqual(fields, {
      'f:args': {},
      'f:items': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:v': {} } },
      'f:tags': { 'v:"x"': {} },
    });
    assert.deepEqual(FieldSet.fromFieldsV1(fields).toFieldsV1(), fields);
    assert.equal(pathText(['f:items', 'k:{"name":"a"}', 'f:v']), '.items[name="a"].v');
  });

  it('keyed lists merge in structured-merge-diff order; atomic lists are replaced', () => {
    const names = (o: unknown) =>
      ((o as { items: { name: string }[] }).items ?? []).map((i) => i.name);
    const item = (name: string) => ({ name });
    assert.deepEqual(
      names(merge({ items: ['a', 'b', 'c'].map(item) }, { items: ['c', 'd'].map(item) }, keyed)),
      ['a', 'b', 'c', 'd'],
    );
    assert.deepEqual(
      names(merge({ items: ['a', 'b'].map(item) }, { items: ['b', 'a'].map(item) }, keyed)),
      ['b', 'a'],
    );
    assert.deepEqual(merge({ args: ['1', '2'] }, { args: ['3'] }, keyed), { args: ['3'] });
    assert.deepEqual(merge({ tags: ['x'] }, { tags: ['y'] }, keyed), { tags: ['x', 'y'] });
  });

  it('conflicts with several managers are listed by manager, one line per field', () => {
    const first = applyConfig(
      undefined,
      { items: [{ name: 'a', v: '1' }], tags: ['x'] },
      write('alice'),
      false,
    );
    const live = { ...first.object, metadata: { managedFields: first.managedFields } };
    const second = applyConfig(live, { items: [{ name: 'a', v: '2' }] }, write('bob'), true);
    const third = { ...second.object, metadata: { managedFields: second.managedFields } };
    assert.throws(
      () =>
        applyConfig(
          third,
          { items: [{ name: 'a', v: '3' }], args: ['z'], tags: ['x'] },
          write('carol'),
          false,
        ),
      {
        message: 'Apply failed with 1 conflict: conflict with "bob": .items[name="a"].v',
      },
    );
    const withArgs = applyConfig(third, { args: ['q'] }, write('dora'), false);
    const fourth = { ...withArgs.object, metadata: { managedFields: withArgs.managedFields } };
    assert.throws(
      () =>
        applyConfig(fourth, { items: [{ name: 'a', v: '3' }], args: ['z'] }, write('carol'), false),
      {
        message:
          'Apply failed with 2 conflicts: conflicts with "bob":\n- .items[name="a"].v\nconflicts with "dora":\n- .args',
      },
    );
  });
});
