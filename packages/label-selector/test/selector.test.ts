import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromSelectorObject, matchesSelector, parseSelector } from '../src/index.js';

const match = (selector: string, labels: Record<string, string>): boolean => {
  const parsed = parseSelector(selector);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  return matchesSelector(parsed.selector, labels);
};

describe('matchesSelector', () => {
  const cases: [selector: string, labels: Record<string, string>, want: boolean][] = [
    ['', {}, true],
    ['a=b', { a: 'b' }, true],
    ['a==b', { a: 'b' }, true],
    ['a=b', { a: 'c' }, false],
    ['a=b', {}, false],
    ['a!=b', { a: 'c' }, true],
    ['a!=b', {}, true],
    ['a!=b', { a: 'b' }, false],
    ['e in (f,g)', { e: 'g' }, true],
    ['e in (f, g)', { e: 'h' }, false],
    ['e in (f,g)', {}, false],
    ['e notin (f,g)', { e: 'h' }, true],
    ['e notin (f,g)', {}, true],
    ['e notin (f,g)', { e: 'f' }, false],
    ['!h', {}, true],
    ['!h', { h: '' }, false],
    ['i', { i: '' }, true],
    ['i', {}, false],
    ['n>3', { n: '4' }, true],
    ['n>3', { n: '3' }, false],
    ['n<3', { n: 'x' }, false],
    ['app.kubernetes.io/name=web', { 'app.kubernetes.io/name': 'web' }, true],
    ['a=b,c!=d,e in (f,g),!h,i', { a: 'b', c: 'x', e: 'f', i: '1' }, true],
    ['a=b,c!=d,e in (f,g),!h,i', { a: 'b', c: 'x', e: 'f', i: '1', h: 'y' }, false],
    ['a=b,c!=d,e in (f,g),!h,i', { a: 'b', c: 'd', e: 'f', i: '1' }, false],
    [' a = b , ! h ', { a: 'b' }, true],
    ['a=', { a: '' }, true],
  ];
  for (const [selector, labels, want] of cases) {
    it(`${JSON.stringify(selector)} on ${JSON.stringify(labels)} → ${want}`, () =>
      assert.equal(match(selector, labels), want));
  }
});

describe('parseSelector errors (kube-apiserver wording, naming the requirement)', () => {
  const cases: [selector: string, mentions: string][] = [
    ['a in (b', 'unable to parse requirement: "a in (b"'],
    ['a=b,,c', 'unable to parse requirement: "" in selector "a=b,,c"'],
    ['a=b c', 'unable to parse requirement: "a=b c"'],
    ['-bad=x', 'key "-bad" in selector "-bad=x" is not a valid label key'],
    ['a=b$', 'value "b$" in selector "a=b$" is not a valid label value'],
    ['a=' + 'x'.repeat(64), 'is not a valid label value'],
    [
      'Example.COM/a=b',
      'key "Example.COM/a" in selector "Example.COM/a=b" is not a valid label key',
    ],
    ['n>x', "for 'gt', 'lt' operators, the value must be an integer"],
    ['a in ((b))', 'unable to parse requirement: "a in ((b))"'],
    ['a in ()', "values set can't be empty"],
    ['x'.repeat(64), 'expected key, !key, key=value'],
  ];
  for (const [selector, mentions] of cases) {
    it(`rejects ${JSON.stringify(selector)}`, () => {
      const parsed = parseSelector(selector);
      assert.equal(parsed.ok, false);
      assert.ok(!parsed.ok && parsed.error.includes(mentions), !parsed.ok ? parsed.error : '');
    });
  }
});

describe('fromSelectorObject (policy/v1 semantics)', () => {
  it('selects nothing for a missing selector and everything for an empty one', () => {
    assert.equal(fromSelectorObject(undefined), undefined);
    assert.deepEqual(fromSelectorObject({}), []);
  });
  it('turns matchLabels and matchExpressions into requirements', () => {
    const selector = fromSelectorObject({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }],
    });
    assert.ok(selector);
    assert.equal(matchesSelector(selector, { app: 'web', tier: 'front' }), true);
    assert.equal(matchesSelector(selector, { app: 'web', tier: 'db' }), false);
  });
  it('selects nothing for an unknown operator', () =>
    assert.equal(
      fromSelectorObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }),
      undefined,
    ));
});
