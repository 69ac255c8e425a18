/**
 * Auto-approval covers what detection found, never a request a person typed by hand unless
 * `approval.autoApprove.manual` says so (issue 15): a non-approver who may propose must not get
 * approval for free by proposing on an auto-approved pool.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { autoApproves } from '../../../src/app/control/reconcile.js';
import { parseSelector, type Selector } from '@kubemaint/label-selector';

const selector = (text: string): Selector => {
  const parsed = parseSelector(text);
  assert.ok(parsed.ok);
  return parsed.selector;
};
const dev = { env: 'dev' };
const prod = { env: 'prod' };

describe('autoApproves', () => {
  const rule = { autoApprove: selector('env=dev') };
  const cases: [
    why: string,
    settings: Parameters<typeof autoApproves>[0],
    origin: 'detection' | 'person' | undefined,
    labels: Record<string, string>,
    approves: boolean,
  ][] = [
    ['a detected request on a matching node', rule, 'detection', dev, true],
    ['a detected request on another node', rule, 'detection', prod, false],
    ['a hand-typed request on a matching node', rule, 'person', dev, false],
    [
      'a request with no recorded origin (a person, written before origins)',
      rule,
      undefined,
      dev,
      false,
    ],
    [
      'a hand-typed request with manual: true',
      { ...rule, autoApproveManual: true },
      'person',
      dev,
      true,
    ],
    [
      'a hand-typed request with manual: true on another node',
      { ...rule, autoApproveManual: true },
      'person',
      prod,
      false,
    ],
    ['anything without the rule', {}, 'detection', dev, false],
  ];
  for (const [why, settings, origin, labels, approves] of cases) {
    it(`${approves ? 'approves' : 'leaves'} ${why}`, () =>
      assert.equal(
        autoApproves(settings, origin === undefined ? {} : { origin }, labels),
        approves,
      ));
  }
});
