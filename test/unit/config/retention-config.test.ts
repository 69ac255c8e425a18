import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controlSettingsFromConfig } from '../../../src/compose/control-settings.js';
import { parseConfig } from '../../../src/config/parse.js';

const DAY = 86_400_000;

describe('retention: in kubemaint.yaml', () => {
  it('keeps 30 days and the newest 20 ended requests of each node by default', () => {
    const result = parseConfig('', 'k.yaml');
    assert.ok(result.ok);
    assert.deepEqual(result.config.retention, { maxAge: 30 * DAY, keepPerNode: 20 });
    assert.deepEqual(controlSettingsFromConfig(result.config).retention, {
      maxAgeMs: 30 * DAY,
      keepPerNode: 20,
    });
  });

  it('takes an age in days and a count', () => {
    const result = parseConfig('retention:\n  maxAge: 90d\n  keepPerNode: 5\n', 'k.yaml');
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    assert.deepEqual(result.config.retention, { maxAge: 90 * DAY, keepPerNode: 5 });
  });

  const refused: [string, string, string, RegExp][] = [
    [
      'an age that is no duration',
      'maxAge: a month',
      'retention.maxAge',
      /"a month" is not a duration/,
    ],
    ['an age under a day', 'maxAge: 2h', 'retention.maxAge', /at least 1d/],
    [
      'no ended request kept at all',
      'keepPerNode: 0',
      'retention.keepPerNode',
      /at least 1, got 0/,
    ],
    ['a count that is no number', 'keepPerNode: many', 'retention.keepPerNode', /number/],
    ['a fractional count', 'keepPerNode: 2.5', 'retention.keepPerNode', /whole number/],
    ['a misspelt key', 'maxage: 30d', 'retention.maxage', /unknown key/],
  ];
  for (const [name, yaml, path, message] of refused) {
    it(`refuses ${name}, naming the key`, () => {
      const result = parseConfig(`retention:\n  ${yaml}\n`, 'k.yaml');
      assert.ok(!result.ok);
      const problem = result.problems.find((p) => p.path === path);
      assert.ok(problem, JSON.stringify(result.problems));
      assert.match(problem.message, message);
    });
  }
});
