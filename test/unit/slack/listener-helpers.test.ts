import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readCampaignValue } from '../../../src/adapters/slack/campaign-actions.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { messageKind } from '../../../src/adapters/slack/prompt-refresh.js';
import { readRejectTarget } from '../../../src/adapters/slack/reject-flow.js';
import { keyedSerial, limited } from '../../../src/adapters/slack/runtime.js';

const actions = (...ids: string[]) => [
  { type: 'section', text: { type: 'mrkdwn', text: 'x' } },
  { type: 'actions', elements: ids.map((action_id) => ({ type: 'button', action_id })) },
];

describe('messageKind', () => {
  const cases: [string, unknown, string][] = [
    ['campaign buttons', actions(SLACK_ACTION.campaignApprove, SLACK_ACTION.reject), 'campaign'],
    ['a pool button', actions(SLACK_ACTION.campaignApprovePool), 'campaign'],
    ['drain buttons', actions(SLACK_ACTION.drainWait, SLACK_ACTION.drainForce), 'drain'],
    ['request buttons', actions(SLACK_ACTION.approve, SLACK_ACTION.details), 'request'],
    ['no blocks', undefined, 'request'],
    ['garbage', 'not blocks', 'request'],
  ];
  for (const [what, blocks, kind] of cases)
    it(`${what} → ${kind}`, () => assert.equal(messageKind(blocks), kind));
});

describe('readCampaignValue', () => {
  it('reads `<campaign>` and `<campaign>/<pool>`', () => {
    assert.deepEqual(readCampaignValue('c-1a2b3c'), { campaign: 'c-1a2b3c' });
    assert.deepEqual(readCampaignValue('c-1a2b3c/general'), {
      campaign: 'c-1a2b3c',
      pool: 'general',
    });
  });
});

describe('readRejectTarget', () => {
  it('keeps only the known string fields of private_metadata', () => {
    assert.deepEqual(
      readRejectTarget(
        '{"requestId":"r-7f3a9c","channel":"C1","ts":"1.2","kind":"request","evil":{"x":1},"campaign":5}',
      ),
      { requestId: 'r-7f3a9c', channel: 'C1', ts: '1.2', kind: 'request' },
    );
    assert.deepEqual(readRejectTarget('not json'), {});
  });
});

describe('keyedSerial', () => {
  it('runs works of one key in order and of other keys independently, even after a failure', async () => {
    const serial = keyedSerial();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = serial('r-1', async () => {
      await gate;
      log.push('a1');
      throw new Error('boom');
    });
    const second = serial('r-1', async () => void log.push('a2'));
    await serial('r-2', async () => void log.push('b1'));
    assert.deepEqual(log, ['b1'], 'another key did not wait');
    release();
    await assert.rejects(first, /boom/);
    await second;
    assert.deepEqual(log, ['b1', 'a1', 'a2']);
  });
});

describe('limited', () => {
  it('never runs more than the limit at once and runs everything', async () => {
    const run = limited(3);
    let running = 0;
    let peak = 0;
    let finished = 0;
    const all = Array.from(
      { length: 20 },
      () =>
        new Promise<void>((done) =>
          run(async () => {
            running += 1;
            peak = Math.max(peak, running);
            await new Promise((r) => setImmediate(r));
            running -= 1;
            finished += 1;
            done();
          }),
        ),
    );
    await Promise.all(all);
    assert.equal(peak, 3);
    assert.equal(finished, 20);
  });
});
