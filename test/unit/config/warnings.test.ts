import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/config/parse.js';
import { configWarnings } from '../../../src/config/warnings.js';

const warningsFor = (yaml: string): string[] => {
  const parsed = parseConfig(yaml, 'test.yaml', {});
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return configWarnings(parsed.config);
};

describe('config warnings: valid, but kubemaint could not do its job', () => {
  const cases: [string, string, RegExp | undefined][] = [
    ['nobody can approve', 'lock: {concurrency: 2}', /lists nobody .* wait until it expires/],
    ['a Slack approver', 'approval: {approvers: {users: [U0ALICE]}}', undefined],
    ['a CLI approver', 'approval: {approvers: {cli: [alice]}}', undefined],
    ['an approver group', 'approval: {approvers: {groups: [S0OPS]}}', undefined],
    [
      'auto-approval alone',
      'approval: {autoApprove: {nodeSelector: kubemaint.io/pool=dev}}',
      undefined,
    ],
    [
      'two-person rule with one approver',
      'approval: {twoPerson: true, approvers: {users: [U0ALICE]}}',
      /twoPerson needs two different approvers/,
    ],
    [
      'two-person rule with two approvers',
      'approval: {twoPerson: true, approvers: {users: [U0ALICE], cli: [bob]}}',
      undefined,
    ],
    [
      'two-person rule with a group',
      'approval: {twoPerson: true, approvers: {users: [U0ALICE], groups: [S0OPS]}}',
      undefined,
    ],
    [
      'a pool limit above the fleet-wide concurrency',
      'approval: {approvers: {cli: [bob]}}\nlock: {concurrency: 2, poolLabel: pool, pools: {gpu: 1, web: 5}}',
      /lock\.pools\.web is 5 but lock\.concurrency \(2\) caps the whole fleet/,
    ],
    [
      'two-person rule with anyone on the CLI',
      'approval: {twoPerson: true, approvers: {cli: ["*"]}}',
      undefined,
    ],
  ];
  for (const [name, yaml, expected] of cases) {
    it(`${name}: ${expected ? 'warns' : 'no warning'}`, () => {
      const warnings = warningsFor(yaml);
      if (expected === undefined) assert.deepEqual(warnings, []);
      else {
        assert.equal(warnings.length, 1, warnings.join('\n'));
        assert.match(warnings[0]!, expected);
      }
    });
  }
});
