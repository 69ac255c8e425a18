import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closest, editDistance, suggestionHint } from '../../../src/config/suggest.js';

describe('editDistance', () => {
  const cases: [string, string, number][] = [
    ['concurrency', 'concurrency', 0],
    ['concurrncy', 'concurrency', 1],
    ['concurrnecy', 'concurrency', 1],
    ['timeout', 'timeot', 1],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
  ];
  for (const [a, b, want] of cases) {
    it(`${a || '""'} ↔ ${b} = ${want}`, () => {
      assert.equal(editDistance(a, b), want);
      assert.equal(editDistance(b, a), want);
    });
  }
});

describe('closest', () => {
  const allowed = ['concurrency', 'poolLabel', 'pools', 'ttl', 'gracePeriodSeconds', 'timeout'];
  const cases: [string, string | undefined, string][] = [
    ['concurrncy', 'concurrency', 'one letter missing'],
    ['Concurrency', 'concurrency', 'case only'],
    ['grace_period_seconds', 'gracePeriodSeconds', 'snake_case'],
    ['pool-label', 'poolLabel', 'kebab-case'],
    ['tll', 'ttl', 'transposition in a short word'],
    ['timeot', 'timeout', 'typo'],
    ['maxUnavailable', undefined, 'a different word'],
    ['pool', 'pools', 'plural'],
    ['xyz', undefined, 'nothing close'],
  ];
  for (const [word, want, why] of cases) {
    it(`${word} → ${String(want)} (${why})`, () => assert.equal(closest(word, allowed), want));
  }
  it('suggests nothing on a tie', () => assert.equal(closest('ab', ['ax', 'ay']), undefined));
});

describe('suggestionHint', () => {
  it('suggests the close key', () =>
    assert.equal(
      suggestionHint('concurrncy', ['concurrency', 'ttl']),
      'did you mean `concurrency`?',
    ));
  it('lists the allowed keys when nothing is close', () =>
    assert.equal(suggestionHint('zzz', ['a1', 'b1']), 'allowed here: a1, b1'));
  it('says nothing when nothing is allowed', () =>
    assert.equal(suggestionHint('x', []), undefined));
});
