/**
 * A tick that lost a write race (409 Conflict) is a warning; anything else that fails a tick is an
 * error. Every write is conditional, so a person approving as serve writes is a race, not a fault.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeError } from '../../../src/adapters/kube/errors.js';
import { tickFailure } from '../../../src/compose/cluster-loop.js';

describe('how a failed tick is logged', () => {
  it('a 409 Conflict is a warning that says the next tick reads again', () => {
    const raced = new KubeError('conflict', 'write status of maintenancerequest r-1: modified', {
      status: 409,
      reason: 'Conflict',
    });
    assert.deepEqual(tickFailure(raced), {
      level: 'warn',
      message: 'tick lost a write race (409 Conflict); the next one reads the object again',
    });
  });

  it('anything else is an error: unreachable, forbidden, a name taken, a plain Error', () => {
    for (const error of [
      new KubeError('unavailable', 'list nodes: connection refused', { status: 0 }),
      new KubeError('forbidden', 'list nodes: forbidden', { status: 403 }),
      new KubeError('already-exists', 'create r-1: exists', {
        status: 409,
        reason: 'AlreadyExists',
      }),
      new Error('apiserver unreachable'),
    ])
      assert.equal(tickFailure(error).level, 'error', error.message);
  });
});
