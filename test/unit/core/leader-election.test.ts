import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_ELECTION,
  mayAct,
  nextStep,
  renewed,
  timingsProblem,
  type ElectionMemory,
  type LeaseView,
} from '../../../src/core/leader-election.js';

const T = DEFAULT_ELECTION;
const lease = (holder: string | undefined, version: string, durationMs?: number): LeaseView => ({
  holder,
  durationMs,
  transitions: 3,
  version,
});

describe('leader election: what a candidate does next', () => {
  it('creates the Lease when there is none', () => {
    assert.deepEqual(nextStep(undefined, {}, 'a', 0, T).step, { kind: 'create' });
  });

  it('renews a Lease it holds', () => {
    const { step } = nextStep(lease('a', '7'), { renewedAt: 0 }, 'a', 1_000, T);
    assert.deepEqual(step, { kind: 'renew' });
  });

  it('takes a released Lease at once', () => {
    assert.deepEqual(nextStep(lease(undefined, '7'), {}, 'b', 0, T).step, {
      kind: 'acquire',
      from: undefined,
    });
  });

  it("stands by while another's Lease has not expired by its own clock", () => {
    let memory: ElectionMemory = {};
    // First seen at 100 (its clock): expires at 100 + 15 s, whatever renewTime the holder wrote.
    let decided = nextStep(lease('a', '7'), memory, 'b', 100, T);
    assert.deepEqual(decided.step, { kind: 'standBy', holder: 'a', expiresInMs: 15_000 });
    memory = decided.memory;
    decided = nextStep(lease('a', '7'), memory, 'b', 15_099, T);
    assert.deepEqual(decided.step, { kind: 'standBy', holder: 'a', expiresInMs: 1 });
    decided = nextStep(lease('a', '7'), decided.memory, 'b', 15_100, T);
    assert.deepEqual(decided.step, { kind: 'acquire', from: 'a' });
  });

  it('a renewal (a new version) starts the wait again', () => {
    const first = nextStep(lease('a', '7'), {}, 'b', 0, T);
    const later = nextStep(lease('a', '8'), first.memory, 'b', 14_000, T);
    assert.deepEqual(later.step, { kind: 'standBy', holder: 'a', expiresInMs: 15_000 });
  });

  it("honours the holder's leaseDurationSeconds over its own", () => {
    const first = nextStep(lease('a', '7', 60_000), {}, 'b', 0, T);
    const step = nextStep(lease('a', '7', 60_000), first.memory, 'b', 20_000, T).step;
    assert.deepEqual(step, { kind: 'standBy', holder: 'a', expiresInMs: 40_000 });
  });

  it('a candidate that sees another holder forgets its own renewal: it stops acting at once', () => {
    const leading = renewed({}, 1_000);
    assert.equal(mayAct(leading, 2_000, T), true);
    const { memory } = nextStep(lease('b', '9'), leading, 'a', 2_000, T);
    assert.equal(mayAct(memory, 2_000, T), false);
  });
});

describe('leader election: acting', () => {
  it('acts only within renewDeadline of its last successful renewal', () => {
    const memory = renewed({}, 1_000);
    assert.equal(mayAct({}, 0, T), false, 'never renewed');
    assert.equal(mayAct(memory, 1_000 + T.renewDeadlineMs - 1, T), true);
    assert.equal(mayAct(memory, 1_000 + T.renewDeadlineMs, T), false);
  });

  it('a leader that cannot renew stops before any standby may take over', () => {
    // The leader's last renewal was sent at 0; a standby saw it no earlier than that.
    const leader = renewed({}, 0);
    const standby = nextStep(lease('a', '7'), {}, 'b', 0, T).memory;
    for (let now = 0; now <= 30_000; now += 100) {
      const standbyTakes = nextStep(lease('a', '7'), standby, 'b', now, T).step.kind === 'acquire';
      assert.ok(!(standbyTakes && mayAct(leader, now, T)), `both would act at ${now} ms`);
    }
  });
});

describe('leader election: timings', () => {
  it("accepts client-go's defaults", () => {
    assert.equal(timingsProblem(T), undefined);
  });

  it('refuses a renew deadline as long as the lease', () => {
    assert.match(
      timingsProblem({ ...T, renewDeadlineMs: 15_000 }) ?? '',
      /renewDeadline must be shorter than leaseDuration/,
    );
  });

  it('refuses a retry period that leaves no second try before the deadline', () => {
    assert.match(
      timingsProblem({ ...T, retryPeriodMs: 9_000 }) ?? '',
      /retryPeriod × 1.2 must be shorter than renewDeadline/,
    );
  });
});
