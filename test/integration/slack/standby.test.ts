/**
 * The standby gate (ADR 0054) on two real Bolt apps over HTTP on one sim: a leader's app (acts for
 * the cluster) and a standby's (does not; its relay target is set by each test, as serve reads it
 * from the Lease). Signed requests, as Slack signs them, go to the standby: relayed to the leader and
 * recorded there once; or, with no leader to ask, a relay that fails, or a request relayed already,
 * answered "try again" in the form each kind takes, with nothing written. A forged request is refused
 * before anything is relayed.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { requestMaintenance } from '../../../src/app/control/commands.js';
import type { RelayTarget } from '../../../src/core/leader-address.js';
import { RELAYED_BY_HEADER } from '../../../src/adapters/slack/relay.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { interactionBody, slackHeaders } from '../../support/slack-sign.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';
import { requestOn, startHarness, type Harness } from '../../support/slack-app.js';

const TRY_AGAIN = 'another kubemaint replica is acting for sim; try again in a few seconds';

describe('Slack app on a standby: relay to the leader, else "try again"', () => {
  let sim: TestSim;
  let leader: Harness;
  let standby: Harness;
  let target: RelayTarget = { kind: 'none', why: 'not set' };
  const leaderLog: string[] = [];
  const standbyLog: string[] = [];
  const relayedToLeader = () =>
    leaderLog.filter((l) => l.includes('Slack request relayed by a standby')).length;
  let requestId = '';

  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 20 });
    const into = (log: string[]) =>
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          log.push(chunk.toString());
          done();
        },
      });
    const lines = into(leaderLog);
    leader = await startHarness(
      sim,
      {},
      {
        log: pino({ level: 'info' }, lines),
        standby: {
          identity: 'serve-a_0001',
          acting: () => true,
          relayTarget: () => Promise.resolve({ kind: 'none', why: 'leading' }),
        },
      },
    );
    standby = await startHarness(
      sim,
      {},
      {
        log: pino({ level: 'info' }, into(standbyLog)),
        standby: {
          identity: 'serve-b_0001',
          acting: () => false,
          // A test machine loaded by other suites can be slower than Slack's 3 s.
          answerWithinMs: 30_000,
          relayTarget: () => Promise.resolve(target),
        },
      },
    );
    const proposed = await requestMaintenance(leader.deps, {
      node: 'node-1',
      action: 'reboot',
      by: { kind: 'person', id: 'UREQ' },
    });
    requestId = proposed.request!.id;
  });
  after(async () => {
    await standby?.close();
    await leader?.close();
    await sim?.close();
  });

  const approvals = async () => (await requestOn(sim, 'node-1'))?.approvals.map((a) => a.by);
  /** The next answer through a response_url (the gate posts it after the ack). */
  const nextAnswer = async (h: Harness, before: number) => {
    await waitFor(
      'an answer through the response_url',
      () => h.api.callsOf('response_url').length > before,
      10_000,
    );
    return h.api.callsOf('response_url').at(-1)?.args;
  };

  it('refuses a forged click without relaying it', async () => {
    target = { kind: 'leader', holder: 'serve-a_0001', url: leader.url };
    const body = interactionBody({ type: 'block_actions', actions: [{ value: requestId }] });
    const refused = await standby.post(body, slackHeaders('not-the-secret', body));
    assert.equal(refused.status, 401);
    assert.equal(relayedToLeader(), 0);
    assert.deepEqual(await approvals(), []);
  });

  it("relays a signed click to the leader, which records it once in the clicker's name", async () => {
    target = { kind: 'leader', holder: 'serve-a_0001', url: leader.url };
    const answer = await standby.click(SLACK_ACTION.approve, requestId, 'UALICE');
    assert.equal(answer.status, 200);
    await leader.slack.idle();
    await standby.slack.idle();
    assert.deepEqual(await approvals(), ['UALICE'], standbyLog.join(''));
    assert.equal(relayedToLeader(), 1);
    assert.match(
      leaderLog.find((l) => l.includes('relayed by'))!,
      /serve-b_0001/,
    );
  });

  it("brings the leader's answer back: a command answered in the leader's ack", async () => {
    target = { kind: 'leader', holder: 'serve-a_0001', url: leader.url };
    const answer = await standby.command('help', 'UALICE');
    assert.equal(answer.status, 200);
    const parsed = JSON.parse(answer.text) as { response_type?: string; text?: string };
    assert.equal(parsed.response_type, 'ephemeral');
    assert.match(parsed.text ?? '', /\/maint/);
  });

  it('with nobody holding the Lease, a click is answered "try again" through its response_url, nothing written', async () => {
    target = { kind: 'none', why: 'nobody holds the leader Lease' };
    const relayed = relayedToLeader();
    const answers = standby.api.callsOf('response_url').length;
    const answer = await standby.click(SLACK_ACTION.approve, requestId, 'UBOB');
    assert.equal(answer.status, 200);
    assert.deepEqual(await nextAnswer(standby, answers), {
      response_type: 'ephemeral',
      replace_original: false,
      text: TRY_AGAIN,
    });
    assert.deepEqual(await approvals(), ['UALICE']);
    assert.equal(relayedToLeader(), relayed);
  });

  it('a modal submission keeps the modal open with "try again" as its input error', async () => {
    target = { kind: 'none', why: 'nobody holds the leader Lease' };
    const answer = await standby.submitReject(JSON.stringify({ requestId }), 'kernel', 'UBOB');
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.text), {
      response_action: 'errors',
      errors: { reason: TRY_AGAIN },
    });
    // Still approved by UALICE alone: the reject was not recorded.
    assert.equal((await requestOn(sim, 'node-1'))?.state, 'approved');
    assert.deepEqual(await approvals(), ['UALICE']);
  });

  it('a relay that fails (the leader is gone) answers a command "try again"', async () => {
    target = { kind: 'leader', holder: 'serve-a_0001', url: 'http://127.0.0.1:1/slack/events' };
    const answer = await standby.command(`approve ${requestId}`, 'UBOB');
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.text), { response_type: 'ephemeral', text: TRY_AGAIN });
    assert.deepEqual(await approvals(), ['UALICE']);
  });

  it('a request relayed here already is never relayed again (no loop between replicas)', async () => {
    target = { kind: 'leader', holder: 'serve-a_0001', url: leader.url };
    const relayed = relayedToLeader();
    const answers = standby.api.callsOf('response_url').length;
    const answer = await standby.click(SLACK_ACTION.approve, requestId, 'UBOB', undefined, {
      [RELAYED_BY_HEADER]: 'serve-c_0002',
    });
    assert.equal(answer.status, 200);
    assert.equal((await nextAnswer(standby, answers))?.['text'], TRY_AGAIN);
    assert.equal(relayedToLeader(), relayed);
    assert.deepEqual(await approvals(), ['UALICE']);
  });
});
