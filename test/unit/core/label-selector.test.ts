import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesSelector, parseSelector } from '../../../src/core/label-selector.js';

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

describe('parseSelector errors', () => {
  const cases: [selector: string, mentions: string][] = [
    ['a in (b', 'unbalanced parentheses'],
    ['a=b,,c', 'empty term'],
    ['a=b c', 'a=b c'],
    ['-bad=x', 'label key "-bad" is invalid'],
    ['a=b$', 'a=b$'],
    ['a=' + 'x'.repeat(64), 'is invalid'],
    ['Example.COM/a=b', 'invalid prefix'],
    ['n>x', 'needs an integer value'],
    ['a in ((b))', 'unbalanced parentheses'],
  ];
  for (const [selector, mentions] of cases) {
    it(`rejects ${JSON.stringify(selector)}`, () => {
      const parsed = parseSelector(selector);
      assert.equal(parsed.ok, false);
      assert.ok(!parsed.ok && parsed.error.includes(mentions), !parsed.ok ? parsed.error : '');
    });
  }
  it('explains what a valid term looks like', () => {
    const parsed = parseSelector('a=b c');
    assert.ok(!parsed.ok && parsed.error.includes('expected terms like a=b, c!=d'));
  });
});
