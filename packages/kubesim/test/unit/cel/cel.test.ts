import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compile,
  CelCompileError,
  CelEvaluationError,
  rewriteOptionals,
} from '../../../src/cel/index.js';

const ADMISSION = ['object', 'oldObject', 'request', 'variables', 'namespaceObject', 'params'];

describe('sim CEL', () => {
  it('reads JSON integers as int and maps as maps', () => {
    const p = compile(
      'object.spec.replicas * 2 == 6 && size(object.metadata.labels) == 1',
      ADMISSION,
    );
    assert.equal(
      p.evaluate({ object: { spec: { replicas: 3 }, metadata: { labels: { a: 'b' } } } }),
      true,
    );
  });

  it('returns JSON values', () => {
    const p = compile("{'a': [1, 2.5, 'x', null], 'b': object.metadata.name.split('-')}", [
      'object',
    ]);
    assert.deepEqual(p.evaluate({ object: { metadata: { name: 'n-1' } } }), {
      a: [1, 2.5, 'x', null],
      b: ['n', '1'],
    });
  });

  it('has the macros, has(), matches and the strings extension', () => {
    const object = { metadata: { labels: { 'kubemaint.io/x': 'y', app: 'a' } } };
    for (const expression of [
      "object.metadata.labels.all(k, k.startsWith('kubemaint.io/') || k == 'app')",
      "object.metadata.labels.exists(k, k == 'app')",
      "object.metadata.labels.exists_one(k, k.endsWith('/x'))",
      '[1, 2, 3].filter(x, x > 1).map(x, x * 10) == [20, 30]',
      'has(object.metadata.labels) && !has(object.metadata.annotations)',
      "'kubemaint.io/x' in object.metadata.labels",
      "'slack:T01/U02'.matches('^slack:T[A-Z0-9]+/U[A-Z0-9]+$')",
      "'Ab'.lowerAscii() == 'ab' && 'a,b'.split(',').size() == 2 && ['a', 'b'].join('-') == 'a-b'",
      "'abc'.indexOf('c') == 2 && 'abc'.substring(1) == 'bc' && ' a '.trim() == 'a'",
    ]) {
      assert.equal(compile(expression, ADMISSION).evaluate({ object }), true, expression);
    }
  });

  it('rewrites X.?f.orValue(d) into the has() form, chains and nested defaults included', () => {
    assert.equal(rewriteOptionals("request.subResource == ''"), "request.subResource == ''");
    assert.equal(
      rewriteOptionals("request.?subResource.orValue('')"),
      "(has(request.subResource) ? request.subResource : (''))",
    );
    assert.equal(
      rewriteOptionals('a.b(c)[0].?d.?e.orValue(x.?y.orValue(1))'),
      '(has(a.b(c)[0].d) && has(a.b(c)[0].d.e) ? a.b(c)[0].d.e : ((has(x.y) ? x.y : (1))))',
    );
    assert.equal(
      rewriteOptionals("'a.?b'.size()"),
      "'a.?b'.size()",
      'text in strings is left alone',
    );
    const p = compile(
      "object.metadata.?labels.orValue({}) == {} && request.?subResource.orValue('') == ''",
      ADMISSION,
    );
    assert.equal(p.evaluate({ object: { metadata: {} }, request: {} }), true);
    assert.equal(p.evaluate({ object: { metadata: { labels: { a: 'b' } } }, request: {} }), false);
    assert.equal(
      compile("request.?subResource.orValue('') == 'status'", ADMISSION).evaluate({
        request: { subResource: 'status' },
      }),
      true,
    );
    assert.equal(compile('object.?spec.hasValue()', ADMISSION).evaluate({ object: {} }), false);
  });

  it('refuses optional forms it cannot rewrite exactly, naming the expression', () => {
    for (const expression of [
      'object.?spec',
      'object.?spec.value()',
      "object[?'spec'].orValue(1)",
    ]) {
      assert.throws(
        () => compile(expression, ADMISSION),
        (e: unknown) => {
          assert.ok(e instanceof CelCompileError, String(e));
          assert.match(
            e.message,
            new RegExp(JSON.stringify(expression).replace(/[[\]?.()]/g, '\\$&')),
          );
          return true;
        },
      );
    }
  });

  it('names the expression in compile errors and rejects undeclared names', () => {
    assert.throws(
      () => compile('1 +', ['object']),
      /compilation failed for "1 \+": ERROR: <input>:1:/,
    );
    assert.throws(
      () => compile("requests.name == 'x'", ADMISSION),
      /compilation failed for "requests.name == 'x'": ERROR: undeclared reference to 'requests'/,
    );
    assert.doesNotThrow(() => compile('[1].all(x, x > 0) && type(object) == map', ['object']));
  });

  it('reports evaluation errors with cel-go wording for missing keys', () => {
    const p = compile('object.spec.nodeName == "a"', ['object']);
    assert.throws(
      () => p.evaluate({ object: {} }),
      (e: unknown) =>
        e instanceof CelEvaluationError && /resulted in error: no such key: spec/.test(e.message),
    );
    assert.throws(() => compile("'a'", ['object']).evaluateBool({}), /expected a bool, got "a"/);
  });

  it('lists the variables an expression reads', () => {
    const p = compile('variables.a && variables.b || object.x', ADMISSION);
    assert.deepEqual([...p.variableReferences].sort(), ['a', 'b']);
    assert.deepEqual([...p.references].sort(), ['object', 'variables']);
  });
});
