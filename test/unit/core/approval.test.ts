import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  approve,
  cancel,
  done,
  expire,
  fail,
  propose,
  reject,
  start,
  verifying,
  type ApprovalPolicy,
  type Approver,
  type TransitionResult,
} from '../../../src/core/approval.js';
import { isRequestId, requestId } from '../../../src/core/request-id.js';
import { FINAL_STATES, type MaintenanceRequest } from '../../../src/core/request.js';

const T0 = new Date('2026-03-01T10:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const policy: ApprovalPolicy = {
  users: ['U_ALICE', 'U_BOB', 'U_CAROL'],
  groups: ['S_SRE'],
  autoApproveRules: ['dev-pool'],
  expiresAfterMs: 24 * 3_600_000,
};
const twoPerson: ApprovalPolicy = { ...policy, twoPersonRule: true };
const person = (id: string, groups: string[] = []): Approver => ({ kind: 'person', id, groups });
const tick = { kind: 'system', id: 'tick' } as const;

function ok(result: TransitionResult): MaintenanceRequest {
  assert.ok(result.ok, result.ok ? '' : `${result.error.code}: ${result.error.message}`);
  return result.request;
}
function refused(result: TransitionResult, code: string, message?: string | RegExp): void {
  assert.equal(result.ok, false, 'expected a refusal');
  if (result.ok) return;
  assert.equal(result.error.code, code, result.error.message);
  if (typeof message === 'string') assert.equal(result.error.message, message);
  else if (message) assert.match(result.error.message, message);
}

const proposed = (requestedBy = 'detector'): MaintenanceRequest =>
  ok(
    propose(
      undefined,
      { id: 'r-1a2b3c', node: 'node-a', action: 'reboot', reason: 'reboot-required', requestedBy },
      T0,
    ),
  );
const approved = (): MaintenanceRequest =>
  ok(approve(proposed(), { approver: person('U_ALICE'), policy }, at(1)));
const running = (): MaintenanceRequest =>
  ok(start(approved(), { by: tick, policy, job: 'kubemaint-r-1a2b3c-node-a' }, at(2)));
const inState = (state: MaintenanceRequest['state']): MaintenanceRequest => ({
  ...proposed(),
  state,
});

describe('requestId', () => {
  it('is r- and six hex characters of the given bytes', () => {
    assert.equal(requestId([0x1a, 0x2b, 0x3c]), 'r-1a2b3c');
    assert.equal(requestId(new Uint8Array([0, 15, 255, 7])), 'r-000fff');
  });
  for (const bad of [
    [1, 2],
    [1, 2, 256],
    [1, -1, 3],
    [1.5, 2, 3],
  ]) {
    it(`refuses ${JSON.stringify(bad)}`, () => assert.throws(() => requestId(bad), RangeError));
  }
  it('recognises ids', () => {
    assert.equal(isRequestId('r-1a2b3c'), true);
    for (const text of ['r-1A2B3C', 'r-1a2b3', 'x-1a2b3c', 'r-1a2b3c; rm -rf /']) {
      assert.equal(isRequestId(text), false, text);
    }
  });
  it('always produces a recognisable id', () =>
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 3, maxLength: 3 }), (bytes) =>
        isRequestId(requestId(bytes)),
      ),
    ));
});

describe('propose', () => {
  it('creates a proposal with its first history entry', () => {
    const r = proposed();
    assert.equal(r.state, 'proposed');
    assert.deepEqual(r.approvals, []);
    assert.deepEqual(r.history, [
      { from: null, to: 'proposed', at: T0.toISOString(), by: 'detector', note: 'reboot-required' },
    ]);
  });
  it('returns the active request unchanged when the same change is proposed again', () => {
    const first = proposed();
    const again = propose(
      first,
      { id: 'r-000000', node: 'node-a', action: 'reboot', reason: 'x', requestedBy: 'detector' },
      at(5),
    );
    assert.deepEqual(again, { ok: true, request: first, changed: false });
  });
  it('refuses a different change while one is active', () =>
    refused(
      propose(
        approved(),
        {
          id: 'r-000000',
          node: 'node-a',
          action: 'upgrade',
          targetVersion: 'v1.31.4',
          reason: 'x',
          requestedBy: 'U_BOB',
        },
        at(5),
      ),
      'busy',
      'node-a already has request r-1a2b3c (reboot, approved); let it finish or cancel it first',
    ));
  it('replaces an ended request', () => {
    const next = ok(
      propose(
        inState('done'),
        {
          id: 'r-ffffff',
          node: 'node-a',
          action: 'reboot',
          reason: 'again',
          requestedBy: 'detector',
        },
        at(9),
      ),
    );
    assert.equal(next.id, 'r-ffffff');
    assert.equal(next.history.length, 1);
  });
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['a malformed id', { id: 'req-1' }, /request id "req-1"/],
    ['an empty node', { node: ' ' }, /node name is empty/],
    ['an upgrade without a version', { action: 'upgrade' }, /upgrade target "" is not a version/],
    [
      'an upgrade to shell text',
      { action: 'upgrade', targetVersion: 'v1.31.4; reboot' },
      /not a version like v1.31.4/,
    ],
    ['a reboot with a version', { targetVersion: 'v1.31.4' }, /a reboot has no target version/],
  ];
  for (const [why, patch, message] of bad) {
    it(`refuses ${why}`, () =>
      refused(
        propose(
          undefined,
          {
            id: 'r-1a2b3c',
            node: 'node-a',
            action: 'reboot',
            reason: 'x',
            requestedBy: 'd',
            ...patch,
          },
          T0,
        ),
        'bad_input',
        message,
      ));
  }
  it('accepts distribution-suffixed versions', () => {
    const r = ok(
      propose(
        undefined,
        {
          id: 'r-1a2b3c',
          node: 'n',
          action: 'upgrade',
          targetVersion: 'v1.30.2-eks-a1b2c3',
          reason: 'x',
          requestedBy: 'd',
        },
        T0,
      ),
    );
    assert.equal(r.targetVersion, 'v1.30.2-eks-a1b2c3');
  });
  // The target is written into the executor Job's arguments and compared with what kubelets report:
  // only a Kubernetes release is accepted, `v` and three numbers of sane length, optionally with a
  // distribution suffix (`-eks-…`, `+k3s1`) of at most 64 characters.
  const target = (targetVersion: string) =>
    propose(
      undefined,
      {
        id: 'r-1a2b3c',
        node: 'n',
        action: 'upgrade',
        targetVersion,
        reason: 'x',
        requestedBy: 'd',
      },
      T0,
    );
  const releases = [
    'v1.31.4',
    'v1.31.10',
    'v999.999.9999',
    'v1.31.4+k3s1',
    'v1.31.4-a',
    `v1.31.4-${'a'.repeat(64)}`,
  ];
  for (const version of releases) {
    it(`accepts the release ${version.length > 20 ? `${version.slice(0, 20)}…` : version} as a target`, () =>
      assert.equal(ok(target(version)).targetVersion, version));
  }
  const notReleases = [
    '1.31.4',
    'xv1.31.4',
    'v1.31',
    'v1x31x4',
    'v1000.1.1',
    'v1.1000.1',
    'v1.31.10000',
    'v1.31.4-',
    'v1.31.4_k3s1',
    `v1.31.4-${'a'.repeat(65)}`,
  ];
  for (const version of notReleases) {
    it(`refuses ${version.length > 20 ? `${version.slice(0, 20)}…` : version} as a target`, () =>
      refused(target(version), 'bad_input', /is not a version like v1\.31\.4$/));
  }
});

describe('approve', () => {
  const cases: [why: string, approver: Approver, approves: boolean][] = [
    ['a listed user', person('U_ALICE'), true],
    ['a member of an approver group', person('U_ZED', ['S_OTHER', 'S_SRE']), true],
    ['a configured auto-approval rule', { kind: 'policy', rule: 'dev-pool' }, true],
    ['an unlisted user in no approver group', person('U_ZED', ['S_OTHER']), false],
    ['an unknown auto-approval rule', { kind: 'policy', rule: 'prod' }, false],
    ['a person posing as a policy', person('policy:dev-pool'), false],
  ];
  for (const [why, approver, approves] of cases) {
    it(`${approves ? 'accepts' : 'refuses'} ${why}`, () => {
      const result = approve(proposed(), { approver, policy }, at(1));
      if (approves) assert.equal(ok(result).state, 'approved');
      else refused(result, 'not_authorised', /cannot approve r-1a2b3c: /);
    });
  }
  it('records who approved and when, and appends history', () => {
    const r = approved();
    assert.deepEqual(r.approvals, [{ by: 'U_ALICE', at: at(1).toISOString() }]);
    assert.deepEqual(r.history.at(-1), {
      from: 'proposed',
      to: 'approved',
      at: at(1).toISOString(),
      by: 'U_ALICE',
    });
    assert.equal(r.updatedAt, at(1).toISOString());
  });
  it('records a policy approval as policy:<rule>', () =>
    assert.equal(
      ok(approve(proposed(), { approver: { kind: 'policy', rule: 'dev-pool' }, policy }, at(1)))
        .approvals[0]?.by,
      'policy:dev-pool',
    ));
  it('is idempotent for the same person', () => {
    const r = approved();
    assert.deepEqual(approve(r, { approver: person('U_ALICE'), policy }, at(3)), {
      ok: true,
      request: r,
      changed: false,
    });
  });
  it('leaves an approved request unchanged when another approver clicks', () =>
    assert.equal(
      (approve(approved(), { approver: person('U_BOB'), policy }, at(3)) as { changed: boolean })
        .changed,
      false,
    ));
  it('still checks authorisation on an approved request', () =>
    refused(approve(approved(), { approver: person('U_ZED'), policy }, at(3)), 'not_authorised'));
  for (const state of FINAL_STATES) {
    it(`refuses a ${state} request`, () =>
      refused(
        approve(inState(state), { approver: person('U_ALICE'), policy }, at(1)),
        'invalid_transition',
        `request r-1a2b3c is ${state}; nothing to approve`,
      ));
  }
  it('refuses an expired proposal', () =>
    refused(
      approve(proposed(), { approver: person('U_ALICE'), policy }, at(24 * 60)),
      'expired',
      'request r-1a2b3c expired at 2026-03-02T10:00:00.000Z (proposals expire after 1d); propose it again',
    ));
  it('accepts one minute before expiry', () =>
    assert.equal(
      ok(approve(proposed(), { approver: person('U_ALICE'), policy }, at(24 * 60 - 1))).state,
      'approved',
    ));
  it('lets an authorised requester approve their own request without the two-person rule', () =>
    assert.equal(
      ok(approve(proposed('U_ALICE'), { approver: person('U_ALICE'), policy }, at(1))).state,
      'approved',
    ));
});

describe('approve under the two-person rule', () => {
  const first = () =>
    ok(approve(proposed('U_CAROL'), { approver: person('U_ALICE'), policy: twoPerson }, at(1)));
  it('keeps a request proposed after one approval, noting it in history', () => {
    const r = first();
    assert.equal(r.state, 'proposed');
    assert.equal(r.approvals.length, 1);
    assert.deepEqual(r.history.at(-1), {
      from: 'proposed',
      to: 'proposed',
      at: at(1).toISOString(),
      by: 'U_ALICE',
      note: 'first of two approvals; waiting for a second approver',
    });
  });
  it('approves with a second distinct approver', () => {
    const r = ok(approve(first(), { approver: person('U_BOB'), policy: twoPerson }, at(2)));
    assert.equal(r.state, 'approved');
    assert.deepEqual(
      r.approvals.map((a) => a.by),
      ['U_ALICE', 'U_BOB'],
    );
  });
  it('does not count the same approver twice', () => {
    const r = first();
    assert.deepEqual(approve(r, { approver: person('U_ALICE'), policy: twoPerson }, at(2)), {
      ok: true,
      request: r,
      changed: false,
    });
  });
  it('refuses the requester as the second approver', () =>
    refused(
      approve(first(), { approver: person('U_CAROL'), policy: twoPerson }, at(2)),
      'two_person_rule',
      'U_CAROL requested r-1a2b3c, so under the two-person rule two other approvers must approve it',
    ));
  it('refuses the requester as the first approver too', () =>
    refused(
      approve(proposed('U_CAROL'), { approver: person('U_CAROL'), policy: twoPerson }, at(1)),
      'two_person_rule',
    ));
  it('lets a configured auto-approval stand alone', () =>
    assert.equal(
      ok(
        approve(
          proposed(),
          { approver: { kind: 'policy', rule: 'dev-pool' }, policy: twoPerson },
          at(1),
        ),
      ).state,
      'approved',
    ));
});

describe('reject and cancel', () => {
  it('an approver rejects a proposal with a reason', () => {
    const r = ok(
      reject(
        proposed(),
        { by: { kind: 'person', id: 'U_BOB' }, policy, reason: 'not today' },
        at(1),
      ),
    );
    assert.equal(r.state, 'rejected');
    assert.equal(r.history.at(-1)?.note, 'not today');
  });
  it('a non-approver cannot reject', () =>
    refused(
      reject(proposed(), { by: { kind: 'person', id: 'U_ZED' }, policy }, at(1)),
      'not_authorised',
    ));
  it('rejecting twice is idempotent', () => {
    const r = ok(reject(proposed(), { by: { kind: 'person', id: 'U_BOB' }, policy }, at(1)));
    assert.equal(
      (reject(r, { by: { kind: 'person', id: 'U_ALICE' }, policy }, at(2)) as { changed: boolean })
        .changed,
      false,
    );
  });
  it('a running request is cancelled, not rejected', () =>
    refused(
      reject(running(), { by: { kind: 'person', id: 'U_BOB' }, policy }, at(3)),
      'invalid_transition',
      'request r-1a2b3c is running; nothing to reject; cancel it instead',
    ));

  const who: [why: string, by: Parameters<typeof cancel>[1]['by'], allowed: boolean][] = [
    ['the requester (not an approver)', { kind: 'person', id: 'U_REQ' }, true],
    ['an approver', { kind: 'person', id: 'U_BOB' }, true],
    ['kubemaint itself', { kind: 'system', id: 'tick' }, true],
    ['anyone else', { kind: 'person', id: 'U_ZED' }, false],
  ];
  for (const [why, by, allowed] of who) {
    it(`${why} ${allowed ? 'may' : 'may not'} cancel`, () => {
      const result = cancel(proposed('U_REQ'), { by, policy }, at(1));
      if (allowed) assert.equal(ok(result).state, 'cancelled');
      else refused(result, 'not_authorised');
    });
  }
  it('cancels a running request before the host command', () =>
    assert.equal(ok(cancel(running(), { by: tick, policy }, at(3))).state, 'cancelled'));
  it('refuses to cancel once the host command was issued', () =>
    refused(
      cancel(
        { ...running(), hostCommandIssuedAt: at(4).toISOString() },
        { by: tick, policy },
        at(5),
      ),
      'invalid_transition',
      /issued its host command at 2026-03-01T10:04:00.000Z/,
    ));
  it('refuses to cancel a done request', () =>
    refused(
      cancel(inState('done'), { by: tick, policy }, at(5)),
      'invalid_transition',
      'request r-1a2b3c is done; nothing to cancel',
    ));
});

describe('expire', () => {
  const cases: [
    why: string,
    request: () => MaintenanceRequest,
    minutes: number,
    want: 'expired' | 'unchanged' | 'error',
  ][] = [
    ['a due proposal expires', proposed, 24 * 60, 'expired'],
    ['a proposal not yet due stays', proposed, 24 * 60 - 1, 'unchanged'],
    ['an expired request stays expired', () => inState('expired'), 9999, 'unchanged'],
    ['an approved request does not expire', approved, 9999, 'error'],
  ];
  for (const [why, request, minutes, want] of cases) {
    it(why, () => {
      const result = expire(request(), { policy }, at(minutes));
      if (want === 'error') return refused(result, 'invalid_transition', /only proposals expire/);
      assert.ok(result.ok);
      assert.equal(result.changed, want === 'expired');
      if (want === 'expired')
        assert.equal(result.request.history.at(-1)?.note, 'not approved within 1d');
    });
  }
  it('never expires without expiresAfterMs', () =>
    assert.equal(
      (expire(proposed(), { policy: { users: [], groups: [] } }, at(1e6)) as { changed: boolean })
        .changed,
      false,
    ));
});

describe('start, verifying, done, fail', () => {
  it('starts an approved request, recording job and slot', () => {
    const r = ok(
      start(approved(), { by: tick, policy, job: 'job-1', slot: 'kubemaint-slot-0' }, at(2)),
    );
    assert.deepEqual([r.state, r.job, r.slot], ['running', 'job-1', 'kubemaint-slot-0']);
  });
  it('starting again with the same job is idempotent; another job is refused', () => {
    const r = running();
    assert.equal(
      (start(r, { by: tick, policy, job: r.job! }, at(3)) as { changed: boolean }).changed,
      false,
    );
    refused(start(r, { by: tick, policy, job: 'other' }, at(3)), 'invalid_transition');
  });
  it('refuses to start a proposal', () =>
    refused(
      start(proposed(), { by: tick, policy, job: 'j' }, at(2)),
      'invalid_transition',
      'request r-1a2b3c is proposed; nothing to start; it is not approved yet',
    ));
  it('refuses to start a request edited into approved without approvals', () =>
    refused(start(inState('approved'), { by: tick, policy, job: 'j' }, at(2)), 'not_authorised'));
  it('refuses to start with only one approval under the two-person rule', () =>
    refused(start(approved(), { by: tick, policy: twoPerson, job: 'j' }, at(2)), 'not_authorised'));
  it('records the host command time once', () => {
    const v = ok(
      verifying(
        running(),
        { by: { kind: 'system', id: 'executor' }, bootIdBefore: 'boot-1' },
        at(4),
      ),
    );
    assert.deepEqual(
      [v.state, v.hostCommandIssuedAt, v.bootIdBefore],
      ['verifying', at(4).toISOString(), 'boot-1'],
    );
    assert.deepEqual(verifying(v, { by: tick }, at(9)), { ok: true, request: v, changed: false });
  });
  it('finishes a verified request and is idempotent', () => {
    const v = ok(verifying(running(), { by: tick }, at(4)));
    const d = ok(done(v, { by: tick, proof: 'bootID changed' }, at(8)));
    assert.equal(d.state, 'done');
    assert.equal(d.history.at(-1)?.note, 'bootID changed');
    assert.equal((done(d, { by: tick, proof: 'x' }, at(9)) as { changed: boolean }).changed, false);
  });
  it('refuses to finish a running request that was never verified', () =>
    refused(done(running(), { by: tick, proof: 'x' }, at(4)), 'invalid_transition'));
  it('fails any active request with an explanation', () => {
    for (const r of [proposed(), approved(), running()]) {
      const f = ok(
        fail(r, { by: tick, failure: 'drain blocked by PDB; node left cordoned' }, at(5)),
      );
      assert.deepEqual(
        [f.state, f.failure],
        ['failed', 'drain blocked by PDB; node left cordoned'],
      );
    }
  });
  it('refuses a failure without explanation, and failing a done request', () => {
    refused(fail(running(), { by: tick, failure: ' ' }, at(5)), 'bad_input');
    refused(fail(inState('done'), { by: tick, failure: 'x' }, at(5)), 'invalid_transition');
  });
});

describe('state machine properties', () => {
  const ops = [
    (r: MaintenanceRequest, t: Date) =>
      approve(r, { approver: person('U_ALICE'), policy: twoPerson }, t),
    (r: MaintenanceRequest, t: Date) =>
      approve(r, { approver: person('U_BOB'), policy: twoPerson }, t),
    (r: MaintenanceRequest, t: Date) =>
      reject(r, { by: { kind: 'person', id: 'U_BOB' }, policy }, t),
    (r: MaintenanceRequest, t: Date) => cancel(r, { by: tick, policy }, t),
    (r: MaintenanceRequest, t: Date) => expire(r, { policy }, t),
    (r: MaintenanceRequest, t: Date) => start(r, { by: tick, policy: twoPerson, job: 'j' }, t),
    (r: MaintenanceRequest, t: Date) => verifying(r, { by: tick }, t),
    (r: MaintenanceRequest, t: Date) => done(r, { by: tick, proof: 'p' }, t),
    (r: MaintenanceRequest, t: Date) => fail(r, { by: tick, failure: 'f' }, t),
  ];
  it('history grows by one per change, final states are absorbing, nothing runs without two approvals', () =>
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(ops.length - 1), fc.nat(3000)), { maxLength: 25 }),
        (steps) => {
          let r = proposed('U_CAROL');
          let minutes = 0;
          for (const [op, dt] of steps) {
            minutes += dt;
            const before = r;
            const result = ops[op]!(r, at(minutes));
            if (!result.ok) continue;
            r = result.request;
            assert.equal(r.history.length, before.history.length + (result.changed ? 1 : 0));
            if ((FINAL_STATES as readonly string[]).includes(before.state))
              assert.equal(r.state, before.state);
            if (r.state === 'running') assert.ok(new Set(r.approvals.map((a) => a.by)).size >= 2);
          }
        },
      ),
    ));
});

// Rules of DESIGN §4 the cases above left unstated (issue 35: each was a surviving mutant).
describe('each refusal names the request, what is wrong and what to do', () => {
  const bob = { kind: 'person', id: 'U_BOB' } as const;
  it('a proposal refused for bad input names the node, or `?` when it has no name', () => {
    const input = { id: 'r-1a2b3c', action: 'reboot', reason: 'x', requestedBy: 'U_BOB' } as const;
    refused(
      propose(undefined, { ...input, node: 'node-a', targetVersion: 'v1.31.4' }, T0),
      'bad_input',
      'cannot propose for node-a: a reboot has no target version',
    );
    refused(
      propose(undefined, { ...input, node: '' }, T0),
      'bad_input',
      'cannot propose for ?: node name is empty',
    );
  });
  it('a refused reject, cancel or start says which request and why', () => {
    refused(
      reject(proposed(), { by: { kind: 'person', id: 'U_ZED' }, policy }, at(1)),
      'not_authorised',
      /^cannot reject r-1a2b3c: U_ZED is not an approver/,
    );
    refused(
      cancel(proposed('U_REQ'), { by: { kind: 'person', id: 'U_ZED' }, policy }, at(1)),
      'not_authorised',
      /^cannot cancel r-1a2b3c: U_ZED is not an approver/,
    );
    refused(
      start(inState('approved'), { by: tick, policy, job: 'j' }, at(2)),
      'not_authorised',
      'request r-1a2b3c lacks the approvals the policy requires',
    );
  });
  it('a transition from the wrong state names the state and the verb', () => {
    const done_ = inState('done');
    const cases: [TransitionResult, string][] = [
      [reject(done_, { by: bob, policy }, at(1)), 'reject'],
      [start(done_, { by: tick, policy, job: 'j' }, at(1)), 'start'],
      [verifying(done_, { by: tick }, at(1)), 'verify'],
      [done(inState('running'), { by: tick, proof: 'p' }, at(1)), 'complete'],
      [fail(done_, { by: tick, failure: 'x' }, at(1)), 'fail'],
    ];
    for (const [result, verb] of cases) {
      const state = verb === 'complete' ? 'running' : 'done';
      // Only a proposal is told it is "not approved yet"; a done request is not.
      refused(result, 'invalid_transition', `request r-1a2b3c is ${state}; nothing to ${verb}`);
    }
  });
  it('a failure without explanation is refused with what it lacks', () =>
    refused(
      fail(running(), { by: tick, failure: '  ' }, at(5)),
      'bad_input',
      'a failure needs an explanation',
    ));
});

describe('transitions DESIGN §4 forbids or repeats', () => {
  const bob = { kind: 'person', id: 'U_BOB' } as const;
  const upgrade = (targetVersion: string, existing?: MaintenanceRequest) =>
    propose(
      existing,
      {
        id: 'r-2b3c4d',
        node: 'node-a',
        action: 'upgrade',
        targetVersion,
        reason: 'kubelet behind',
        requestedBy: 'U_BOB',
      },
      T0,
    );
  it('a new proposal is a change to write', () => {
    const result = upgrade('v1.31.4');
    assert.ok(result.ok);
    assert.equal(result.changed, true);
  });
  it('an upgrade to another version while one is active is busy, not the same change', () =>
    refused(
      upgrade('v1.31.5', ok(upgrade('v1.31.4'))),
      'busy',
      /node-a already has request r-2b3c4d \(upgrade, proposed\)/,
    ));
  it('a verifying request is neither rejected nor cancelled: its host command was issued', () => {
    // Even one without the recorded time (edited by hand, or written before it was recorded).
    const verifyingNoTime = inState('verifying');
    refused(
      reject(verifyingNoTime, { by: bob, policy }, at(5)),
      'invalid_transition',
      'request r-1a2b3c is verifying; nothing to reject; cancel it instead',
    );
    refused(
      cancel(verifyingNoTime, { by: tick, policy }, at(5)),
      'invalid_transition',
      'request r-1a2b3c issued its host command at ?; it can no longer be cancelled, wait for verification',
    );
  });
  it('cancelling twice is idempotent, not an error', () => {
    const c = ok(cancel(proposed(), { by: tick, policy }, at(1)));
    assert.deepEqual(cancel(c, { by: bob, policy }, at(2)), {
      ok: true,
      request: c,
      changed: false,
    });
  });
  it('a second failure report keeps the first explanation', () => {
    const f = ok(fail(running(), { by: tick, failure: 'drain blocked' }, at(5)));
    assert.deepEqual(fail(f, { by: tick, failure: 'job vanished' }, at(6)), {
      ok: true,
      request: f,
      changed: false,
    });
  });
  it('kubemaint expires a due proposal: state expired, by kubemaint', () => {
    const e = ok(expire(proposed(), { policy }, at(24 * 60)));
    assert.equal(e.state, 'expired');
    assert.deepEqual(e.history.at(-1), {
      from: 'proposed',
      to: 'expired',
      at: at(24 * 60).toISOString(),
      by: 'kubemaint',
      note: 'not approved within 1d',
    });
  });
  it('an ended request is never started again, not even by the Job it had', () => {
    for (const state of ['failed', 'cancelled', 'done'] as const) {
      const ended = { ...running(), state };
      refused(
        start(ended, { by: tick, policy, job: ended.job! }, at(9)),
        'invalid_transition',
        `request r-1a2b3c is ${state}; nothing to start`,
      );
    }
  });
  it('verification keeps a baseline recorded earlier when it is given none', () => {
    const earlier = { ...running(), kubeletVersionBefore: 'v1.30.2', bootIdBefore: 'boot-1' };
    const v = ok(verifying(earlier, { by: tick }, at(4)));
    assert.deepEqual([v.kubeletVersionBefore, v.bootIdBefore], ['v1.30.2', 'boot-1']);
  });
  it('verification records the kubelet version before an upgrade, its baseline', () => {
    const v = ok(
      verifying(
        running(),
        { by: { kind: 'system', id: 'executor' }, kubeletVersionBefore: 'v1.30.2' },
        at(4),
      ),
    );
    assert.equal(v.kubeletVersionBefore, 'v1.30.2');
    assert.equal(v.bootIdBefore, undefined);
  });
});
