import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  matchesSelectorObject,
  selectorToString,
  tolerates,
} from '../../src/controllers/selectors.js';
import type { LabelSelector, Taint, Toleration } from '../../src/controllers/shapes.js';

describe('matchesSelectorObject', () => {
  const labels = { app: 'web', tier: 'front' };
  const cases: [string, LabelSelector | undefined, boolean][] = [
    ['a missing selector matches nothing (policy/v1)', undefined, false],
    ['an empty selector matches everything', {}, true],
    ['matchLabels', { matchLabels: { app: 'web' } }, true],
    ['matchLabels mismatch', { matchLabels: { app: 'api' } }, false],
    [
      'In',
      { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] },
      true,
    ],
    [
      'NotIn matches a missing key',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      true,
    ],
    ['Exists', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
  ];
  for (const [why, selector, want] of cases)
    it(why, () => assert.equal(matchesSelectorObject(selector, labels), want));

  it('renders the string syntax the store lists by', () => {
    assert.equal(
      selectorToString({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'x', operator: 'DoesNotExist' },
        ],
      }),
      'app=web,tier in (a,b),!x',
    );
  });
});

describe('tolerates', () => {
  const taint: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
  const cases: [string, Toleration, boolean][] = [
    ['empty key with Exists tolerates every taint', { operator: 'Exists' }, true],
    ['same key, Exists', { key: taint.key, operator: 'Exists' }, true],
    ['same key, other effect', { key: taint.key, operator: 'Exists', effect: 'NoSchedule' }, false],
    ['Equal compares values', { key: taint.key, operator: 'Equal', value: 'x' }, false],
    ['Equal with matching empty value', { key: taint.key, value: '' }, true],
    ['empty key without Exists tolerates nothing', { operator: 'Equal' }, false],
  ];
  for (const [why, toleration, want] of cases)
    it(why, () => assert.equal(tolerates(toleration, taint), want));
});
