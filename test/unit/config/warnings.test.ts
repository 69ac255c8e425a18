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
    ['nobody can approve', 'slot: {concurrency: 2}', /lists nobody .* wait until it expires/],
    ['a Slack approver', 'approval: {approvers: {users: [U0ALICE]}}', undefined],
    ['a Kubernetes approver', 'approval: {approvers: {kubernetes: {users: [alice]}}}', undefined],
    [
      'a Kubernetes approver group',
      'approval: {approvers: {kubernetes: {groups: [sre]}}}',
      undefined,
    ],
    [
      'a person as approver',
      'people: [{name: alice, slack: [U0ALICE]}]\napproval: {approvers: {people: [alice]}}',
      undefined,
    ],
    ['an approver group', 'approval: {approvers: {groups: [S0OPS]}}', undefined],
    [
      'auto-approval alone',
      'approval: {autoApprove: {nodeSelector: kubemaint.io/pool=dev}}',
      undefined,
    ],
    [
      'two-person rule with one approver',
      'approval: {twoPerson: true, approvers: {users: [U0ALICE]}}',
      /twoPerson needs two different persons/,
    ],
    [
      'two-person rule with two approvers',
      'approval: {twoPerson: true, approvers: {users: [U0ALICE], kubernetes: {users: [bob]}}}',
      undefined,
    ],
    [
      'two-person rule with a group',
      'approval: {twoPerson: true, approvers: {users: [U0ALICE], groups: [S0OPS]}}',
      undefined,
    ],
    [
      'a pool limit above the fleet-wide concurrency',
      'approval: {approvers: {users: [U0BOB]}}\nslot: {concurrency: 2, poolLabel: pool, pools: {gpu: 1, web: 5}}',
      /slot\.pools\.web is 5 but slot\.concurrency \(2\) caps the whole fleet/,
    ],
    [
      'two-person rule with everyone the cluster authenticates',
      'approval: {twoPerson: true, approvers: {kubernetes: {groups: [system:authenticated]}}}',
      undefined,
    ],
    [
      'two-person rule with two identities of one person',
      'people: [{name: alice, slack: [U0ALICE], kubernetes: [alice]}]\n' +
        'approval: {twoPerson: true, approvers: {users: [U0ALICE], kubernetes: {users: [alice]}}}',
      /twoPerson needs two different persons/,
    ],
    [
      'two-person rule with a person listed by name and by identity',
      'people: [{name: alice, slack: [U0ALICE]}]\n' +
        'approval: {twoPerson: true, approvers: {users: [U0ALICE], people: [alice]}}',
      /twoPerson needs two different persons/,
    ],
    [
      'two-person rule with two persons',
      'people: [{name: alice, slack: [U0ALICE]}, {name: bob, kubernetes: [bob]}]\n' +
        'approval: {twoPerson: true, approvers: {people: [alice, bob]}}',
      undefined,
    ],
    [
      'a person with no identity',
      'people: [{name: alice}]\napproval: {approvers: {users: [U0BOB]}}',
      /people\[0\] \(alice\) has no Slack user ID and no Kubernetes user name/,
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
