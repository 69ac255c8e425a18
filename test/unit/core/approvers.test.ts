/**
 * Who may propose, approve and force, counted in persons (ADR 0012, invariant 9): identities joined
 * by `people:` count once, the requester's person approves nothing under the two-person rule, and
 * forcing a stalled drain past its PDBs needs what approving needs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  approve,
  cancel,
  propose,
  start,
  type ApprovalPolicy,
  type Approver,
  type Person,
  type TransitionResult,
} from '../../../src/core/approval.js';
import {
  approvalsSatisfy,
  authorisationProblem,
  expiresAt,
  forceProblem,
  forceSatisfied,
  personOf,
  proposeProblem,
  samePerson,
} from '../../../src/core/approvers.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';

const T0 = new Date('2026-03-01T10:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

/** alice: Slack U0ALICE and Kubernetes alice; bob: Kubernetes bob; carol: Slack only. */
const policy: ApprovalPolicy = {
  users: ['U0ALICE', 'k8s:alice', 'k8s:bob', 'U0CAROL'],
  groups: ['S0SRE', 'k8s:sre'],
  proposers: { users: ['k8s:dev'], groups: ['k8s:developers', 'S0DEVS'] },
  people: { U0ALICE: 'alice', 'k8s:alice': 'alice', 'k8s:bob': 'bob', U0CAROL: 'carol' },
  expiresAfterMs: 24 * 3_600_000,
};
const twoPerson: ApprovalPolicy = { ...policy, twoPersonRule: true };
const person = (id: string, groups: string[] = []): Person => ({ kind: 'person', id, groups });

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
      {
        id: 'r-1a2b3c',
        node: 'node-a',
        action: 'reboot',
        reason: 'reboot-required',
        requestedBy,
        origin: requestedBy === 'detector' ? 'detection' : 'person',
      },
      T0,
    ),
  );
const withApprovals = (requestedBy: string, ...by: string[]): MaintenanceRequest => ({
  ...proposed(requestedBy),
  approvals: by.map((id) => ({ by: id, at: at(1).toISOString() })),
});
/** Approve one after another, each must succeed; returns the last request. */
function approveAll(request: MaintenanceRequest, p: ApprovalPolicy, ...ids: Approver[]) {
  return ids.reduce(
    (r, approver, i) => ok(approve(r, { approver, policy: p }, at(i + 1))),
    request,
  );
}

describe('personOf', () => {
  it('names the person people: joins an identity to', () => {
    assert.equal(personOf('U0ALICE', policy), 'alice');
    assert.equal(personOf('k8s:alice', policy), 'alice');
  });
  it('is the identity itself when no person lists it', () => {
    assert.equal(personOf('k8s:zed', policy), 'k8s:zed');
    assert.equal(personOf('U0ALICE', { people: {} }), 'U0ALICE');
  });
});

describe('authorisationProblem: Kubernetes identities', () => {
  const cases: [why: string, who: Person, approves: boolean][] = [
    ['a listed Kubernetes user', person('k8s:bob', ['k8s:system:authenticated']), true],
    ['a member of a Kubernetes approver group', person('k8s:zed', ['k8s:sre']), true],
    ['a listed Slack user', person('U0CAROL'), true],
    ['a Kubernetes user in no approver group', person('k8s:zed', ['k8s:dev']), false],
    // The same word in the other namespace is another identity: Slack group S0SRE is not k8s:S0SRE.
    ['a Kubernetes group named like a Slack group', person('k8s:zed', ['k8s:S0SRE']), false],
    ['a Kubernetes user named like a listed Slack ID', person('k8s:U0CAROL'), false],
    ['a proposer (proposing is not approving)', person('k8s:dev'), false],
    ['a person posing as a policy', person('policy:autoApprove'), false],
  ];
  for (const [why, who, approves] of cases) {
    it(`${approves ? 'accepts' : 'refuses'} ${why}`, () =>
      approves
        ? assert.equal(authorisationProblem(who, policy), undefined)
        : assert.ok(authorisationProblem(who, policy)));
  }
  it('says where approvers are configured, and names the person', () =>
    assert.match(
      authorisationProblem(person('k8s:zed'), { ...policy, people: { 'k8s:zed': 'zed' } }) ?? '',
      /^k8s:zed \(zed\) is not an approver .*approval\.approvers/,
    ));
  it('lists every approver group in the refusal, so the person knows which one to join', () =>
    assert.equal(
      authorisationProblem(person('k8s:zed'), policy),
      'k8s:zed is not an approver (not listed by ID, and in none of the approver groups: S0SRE, k8s:sre; see approval.approvers)',
    ));
});

describe('samePerson', () => {
  it('names one identity once, and two identities of one person with the person', () => {
    assert.equal(samePerson('k8s:alice', 'k8s:alice', policy), 'k8s:alice');
    assert.equal(
      samePerson('k8s:alice', 'U0ALICE', policy),
      'k8s:alice and U0ALICE are the same person (alice)',
    );
  });
});

describe('proposeProblem', () => {
  const cases: [why: string, who: Person, may: boolean][] = [
    ['an approver by ID', person('k8s:alice'), true],
    ['an approver by group', person('U0ZED', ['S0SRE']), true],
    ['a proposer by ID', person('k8s:dev'), true],
    ['a proposer by Kubernetes group', person('k8s:zed', ['k8s:developers']), true],
    ['a proposer by Slack group', person('U0ZED', ['S0DEVS']), true],
    ['anyone else', person('k8s:mallory', ['k8s:system:authenticated']), false],
    ['a person posing as a policy', person('policy:autoApprove'), false],
  ];
  for (const [why, who, may] of cases) {
    it(`${may ? 'lets' : 'refuses'} ${why}`, () =>
      may
        ? assert.equal(proposeProblem(who, policy), undefined)
        : assert.ok(proposeProblem(who, policy)));
  }
  it('tells the refused who may and where that is configured', () =>
    assert.equal(
      proposeProblem(person('k8s:mallory'), policy),
      'k8s:mallory may not propose maintenance: only approvers (approval.approvers) and proposers (approval.proposers) may',
    ));
  it('without proposers only approvers may propose', () => {
    const { proposers: _none, ...approversOnly } = policy;
    assert.ok(proposeProblem(person('k8s:dev'), approversOnly));
    assert.equal(proposeProblem(person('U0CAROL'), approversOnly), undefined);
  });
});

describe('approvalsSatisfy counts persons', () => {
  it('two identities of one person are one approval under the two-person rule', () =>
    assert.equal(
      approvalsSatisfy(withApprovals('detector', 'U0ALICE', 'k8s:alice'), twoPerson),
      false,
    ));
  it('two persons are two approvals', () =>
    assert.equal(
      approvalsSatisfy(withApprovals('detector', 'U0ALICE', 'k8s:bob'), twoPerson),
      true,
    ));
  it("the requester's other identity does not count under the rule", () =>
    assert.equal(
      approvalsSatisfy(withApprovals('k8s:alice', 'U0ALICE', 'k8s:bob'), twoPerson),
      false,
    ));
  it('without the rule one approval by the requester suffices', () =>
    assert.equal(approvalsSatisfy(withApprovals('k8s:alice', 'U0ALICE'), policy), true));
  it('identities no person joins count each', () =>
    assert.equal(approvalsSatisfy(withApprovals('detector', 'k8s:x', 'k8s:y'), twoPerson), true));
});

describe('approve: one person counts once (issue 15)', () => {
  it('the same person from Slack and from the CLI is one approval', () => {
    const first = approveAll(proposed(), twoPerson, person('U0ALICE'));
    refused(
      approve(first, { approver: person('k8s:alice'), policy: twoPerson }, at(2)),
      'two_person_rule',
      'k8s:alice and U0ALICE are the same person (alice), who already approved r-1a2b3c; a person counts once, so another approver must approve it',
    );
  });
  it('approving twice as the same identity counts once and changes nothing', () => {
    const first = approveAll(proposed(), twoPerson, person('k8s:alice'));
    const again = approve(first, { approver: person('k8s:alice'), policy: twoPerson }, at(2));
    assert.deepEqual(again, { ok: true, request: first, changed: false });
    assert.equal(first.state, 'proposed');
  });
  it('--as alice then --as bob satisfies the rule: two different persons', () =>
    assert.equal(
      approveAll(proposed(), twoPerson, person('k8s:alice'), person('k8s:bob')).state,
      'approved',
    ));
  it('--as alice then --as alice2 does not when people: joins them into one person', () => {
    const joined: ApprovalPolicy = {
      ...twoPerson,
      users: [...twoPerson.users, 'k8s:alice2'],
      people: { ...twoPerson.people, 'k8s:alice2': 'alice' },
    };
    const first = approveAll(proposed(), joined, person('k8s:alice'));
    refused(
      approve(first, { approver: person('k8s:alice2'), policy: joined }, at(2)),
      'two_person_rule',
      /^k8s:alice2 and k8s:alice are the same person \(alice\)/,
    );
  });
  it('the requester never approves their own request under the rule, from any identity', () => {
    for (const identity of ['k8s:alice', 'U0ALICE']) {
      refused(
        approve(proposed('k8s:alice'), { approver: person(identity), policy: twoPerson }, at(1)),
        'two_person_rule',
      );
      const first = approveAll(proposed('k8s:alice'), twoPerson, person('k8s:bob'));
      refused(
        approve(first, { approver: person(identity), policy: twoPerson }, at(2)),
        'two_person_rule',
      );
    }
  });
  it("names both identities when the requester's other identity approves", () =>
    refused(
      approve(proposed('k8s:alice'), { approver: person('U0ALICE'), policy: twoPerson }, at(1)),
      'two_person_rule',
      'U0ALICE and k8s:alice are the same person (alice), who requested r-1a2b3c, so under the two-person rule two other approvers must approve it',
    ));
  it('a request proposed by alice is approved by two others', () =>
    assert.equal(
      approveAll(proposed('k8s:alice'), twoPerson, person('k8s:bob'), person('U0CAROL')).state,
      'approved',
    ));
  it('start refuses approvals that are one person twice (written around approve)', () =>
    refused(
      start(
        { ...withApprovals('detector', 'U0ALICE', 'k8s:alice'), state: 'approved' },
        { by: { kind: 'system', id: 'kubemaint' }, policy: twoPerson, job: 'j' },
        at(3),
      ),
      'not_authorised',
    ));
  it("the requester's other identity may cancel their own request", () =>
    assert.equal(
      ok(
        cancel(
          proposed('U0ALICE'),
          { by: person('k8s:alice'), policy: { ...policy, users: [], groups: [] } },
          at(1),
        ),
      ).state,
      'cancelled',
    ));
});

describe('forcing a stalled drain past its PDBs', () => {
  const running = (requestedBy = 'detector'): MaintenanceRequest => ({
    ...withApprovals(requestedBy, 'k8s:alice', 'k8s:bob'),
    state: 'running',
  });
  const cases: [
    why: string,
    p: ApprovalPolicy,
    requestedBy: string,
    forcers: Approver[],
    ok: boolean,
  ][] = [
    ['one approver without the rule', policy, 'detector', [person('k8s:bob')], true],
    ['a non-approver', policy, 'detector', [person('k8s:mallory')], false],
    ['nobody', policy, 'detector', [], false],
    ['a policy', policy, 'detector', [{ kind: 'policy', rule: 'autoApprove' }], false],
    ['one approver under the rule', twoPerson, 'detector', [person('k8s:bob')], false],
    [
      'two persons under the rule',
      twoPerson,
      'detector',
      [person('k8s:bob'), person('U0CAROL')],
      true,
    ],
    [
      'one person from Slack and the CLI under the rule',
      twoPerson,
      'detector',
      [person('U0ALICE'), person('k8s:alice')],
      false,
    ],
    [
      'the requester and one other under the rule',
      twoPerson,
      'k8s:alice',
      [person('U0ALICE'), person('k8s:bob')],
      false,
    ],
    ['the requester without the rule', policy, 'k8s:alice', [person('U0ALICE')], true],
    [
      'an approver and a non-approver under the rule',
      twoPerson,
      'detector',
      [person('k8s:bob'), person('k8s:mallory')],
      false,
    ],
    [
      'an approver by group and one by ID',
      twoPerson,
      'detector',
      [person('k8s:zed', ['k8s:sre']), person('k8s:bob')],
      true,
    ],
  ];
  for (const [why, p, requestedBy, forcers, allowed] of cases) {
    it(`${allowed ? 'allows' : 'refuses'} ${why}`, () =>
      assert.equal(forceSatisfied(running(requestedBy), forcers, p), allowed));
  }
  it('says how many persons it has and needs, and why others did not count', () => {
    assert.equal(
      forceProblem(running('k8s:alice'), [person('U0ALICE'), person('k8s:bob')], twoPerson),
      'forcing the drain of r-1a2b3c past its PDBs needs the approvals the request needs: 1 of 2 distinct persons; k8s:alice (alice) requested it, so under the two-person rule they do not count',
    );
    assert.match(
      forceProblem(running(), [person('k8s:mallory')], policy) ?? '',
      /0 of 1 person; k8s:mallory is not an approver/,
    );
  });
});

describe('policy approvers and identities that are not persons', () => {
  const rules: ApprovalPolicy = { ...policy, autoApproveRules: ['dev-pool'] };

  it('a policy approves only by a rule the config names', () => {
    assert.equal(authorisationProblem({ kind: 'policy', rule: 'dev-pool' }, rules), undefined);
    assert.equal(
      authorisationProblem({ kind: 'policy', rule: 'prod-pool' }, rules),
      'auto-approval rule "prod-pool" is not configured',
    );
    assert.equal(
      authorisationProblem({ kind: 'policy', rule: 'dev-pool' }, policy),
      'auto-approval rule "dev-pool" is not configured',
    );
  });

  it('an identity named policy:<rule> is never a person, even when listed among the approvers', () => {
    const listedPolicy: ApprovalPolicy = { ...rules, users: [...rules.users, 'policy:dev-pool'] };
    const poser = person('policy:dev-pool');
    assert.equal(
      authorisationProblem(poser, listedPolicy),
      `"policy:dev-pool" is not a person's ID`,
    );
    assert.equal(proposeProblem(poser, listedPolicy), `"policy:dev-pool" is not a person's ID`);
  });

  it('an approval by a configured rule stands alone, even under the two-person rule', () => {
    const twoWithRules = { ...twoPerson, autoApproveRules: ['dev-pool'] };
    assert.equal(
      approvalsSatisfy(withApprovals('detector', 'policy:dev-pool'), twoWithRules),
      true,
    );
  });

  it('an approval by a rule the config no longer names counts for nothing, not as a person', () => {
    assert.equal(approvalsSatisfy(withApprovals('detector', 'policy:removed'), rules), false);
    assert.equal(
      approvalsSatisfy(withApprovals('detector', 'policy:removed', 'k8s:bob'), twoPerson),
      false,
      'a stale rule is not the second person',
    );
  });

  it('a policy never forces a drain, and the refusal says a person must', () => {
    const running = { ...withApprovals('detector', 'policy:dev-pool'), state: 'running' as const };
    const problem = forceProblem(running, [{ kind: 'policy', rule: 'dev-pool' }], rules);
    assert.equal(
      problem,
      'forcing the drain of r-1a2b3c past its PDBs needs the approvals the request needs: 0 of 1 person; policy:dev-pool cannot force a drain; a person must',
    );
  });

  it('a refusal names every forcer that did not count, and the need of two under the rule', () => {
    const running = { ...withApprovals('detector'), state: 'running' as const };
    assert.equal(
      forceProblem(running, [person('k8s:mallory'), { kind: 'policy', rule: 'dev-pool' }], {
        ...twoPerson,
        groups: [],
      }),
      'forcing the drain of r-1a2b3c past its PDBs needs the approvals the request needs: 0 of 2 distinct persons; k8s:mallory is not an approver (not listed by ID, and in none of the approver groups: none configured; see approval.approvers); policy:dev-pool cannot force a drain; a person must',
    );
  });

  it('the requester is named as not counting only under the two-person rule, and only when they forced', () => {
    const running = { ...withApprovals('k8s:alice'), state: 'running' as const };
    assert.doesNotMatch(
      forceProblem(running, [person('k8s:bob')], twoPerson) ?? '',
      /requested it/,
    );
    assert.equal(forceProblem(running, [person('k8s:alice')], policy), undefined);
  });
});

describe('proposal expiry', () => {
  it('a proposal expires its configured time after it was created, and never without one', () => {
    const request = proposed();
    assert.equal(expiresAt(request, policy)?.toISOString(), '2026-03-02T10:00:00.000Z');
    const { expiresAfterMs: _never, ...forever } = policy;
    assert.equal(expiresAt(request, forever), undefined);
  });
});
