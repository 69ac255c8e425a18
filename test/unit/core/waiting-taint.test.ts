import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  hasWaitingTaint,
  wantsWaitingTaint,
  withWaitingTaint,
} from '../../../src/core/waiting-taint.js';

const KEY = 'kubemaint.io/waiting-for-maintenance';
const on = { enabled: true, key: KEY };

describe('the waiting taint', () => {
  it('is wanted while a request waits, and only when on and accepted', () => {
    for (const state of ['proposed', 'approved'] as const)
      assert.equal(wantsWaitingTaint(on, { state }), true, state);
    for (const state of [
      'running',
      'verifying',
      'done',
      'rejected',
      'expired',
      'cancelled',
      'failed',
    ] as const)
      assert.equal(wantsWaitingTaint(on, { state }), false, state);
    assert.equal(wantsWaitingTaint(on, undefined), false, 'no request');
    assert.equal(wantsWaitingTaint({ ...on, enabled: false }, { state: 'proposed' }), false);
    assert.equal(wantsWaitingTaint(on, { state: 'proposed' }, false), false, 'not accepted yet');
  });
  it('adds and removes only its own key with its own effect', () => {
    const person = { key: KEY, effect: 'NoSchedule' };
    const other = { key: 'example.com/gpu', value: 'true', effect: 'NoSchedule' };
    const added = withWaitingTaint([person, other], KEY, true);
    assert.deepEqual(added, [person, other, { key: KEY, effect: 'PreferNoSchedule' }]);
    assert.equal(withWaitingTaint(added, KEY, true), undefined, 'already there');
    assert.deepEqual(withWaitingTaint(added, KEY, false), [person, other]);
    assert.equal(
      withWaitingTaint([person], KEY, false),
      undefined,
      'a NoSchedule of that key is not ours',
    );
    assert.equal(hasWaitingTaint([person], KEY), false);
  });
});
