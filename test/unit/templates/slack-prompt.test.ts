/**
 * What the Slack templates promise beyond their golden files: buttons only while a decision is open
 * (a final prompt is plain), the ids the Bolt listeners match, campaign buttons per pool, mrkdwn
 * escaping of every interpolated value, and the modals' ids.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REJECT_REASON, SLACK_ACTION, SLACK_VIEW } from '../../../templates/slack/ids.js';
import type { MaintenanceRequest, RequestState } from '../../../src/core/request.js';
import {
  campaignPrompt,
  detailsModal,
  drainQuestion,
  esc,
  rejectModal,
  requestPrompt,
  threadReply,
  type KnownBlock,
  type SlackMessage,
} from '../../../templates/slack/index.js';
import { byState, campaign, ctx, events, preview } from './slack-fixtures.js';
import { REQUEST_STATES_FOR_TEST } from './slack-states.js';

type Json = Record<string, unknown>;
const buttonsOf = (blocks: KnownBlock[]) =>
  blocks
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b as unknown as { elements: Json[] }).elements);
const actionIds = (m: SlackMessage) => buttonsOf(m.blocks).map((b) => b['action_id']);

/** Every string in the rendered blocks, to check none leaks an unescaped control character. */
function mrkdwnTexts(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) mrkdwnTexts(v, out);
  else if (value && typeof value === 'object') {
    const o = value as Json;
    if (o['type'] === 'mrkdwn' && typeof o['text'] === 'string') out.push(o['text']);
    for (const v of Object.values(o)) mrkdwnTexts(v, out);
  }
  return out;
}

describe('request prompt buttons follow the state', () => {
  const expected: Record<RequestState, string[]> = {
    proposed: [
      SLACK_ACTION.approve,
      SLACK_ACTION.reject,
      SLACK_ACTION.snooze,
      SLACK_ACTION.details,
    ],
    approved: [SLACK_ACTION.details],
    running: [SLACK_ACTION.details],
    verifying: [SLACK_ACTION.details],
    done: [],
    failed: [],
    rejected: [],
    expired: [],
    cancelled: [],
    skipped: [],
  };
  for (const state of REQUEST_STATES_FOR_TEST) {
    it(`${state}: ${expected[state].join(', ') || 'plain, no buttons'}`, () => {
      const message = requestPrompt(byState[state], ctx);
      assert.deepEqual(actionIds(message), expected[state]);
      for (const b of buttonsOf(message.blocks)) assert.equal(b['value'], byState[state].id);
      assert.match(message.text, new RegExp(state === 'proposed' ? 'Waiting' : state, 'i'));
    });
  }

  it('Approve asks for confirmation with all four texts Slack requires', () => {
    const [approve] = buttonsOf(requestPrompt(byState.proposed, ctx).blocks);
    const confirm = approve?.['confirm'] as Json;
    for (const key of ['title', 'text', 'confirm', 'deny']) assert.ok(confirm[key], key);
  });

  it('the failure and the rejection note are shown on the final prompt', () => {
    assert.match(JSON.stringify(requestPrompt(byState.failed, ctx)), /drain timed out after 30m/);
    assert.match(
      JSON.stringify(requestPrompt(byState.rejected, ctx)),
      /payments freeze until Monday/,
    );
    assert.match(JSON.stringify(requestPrompt(byState.rejected, ctx)), /<@U0BOB>/);
  });
});

describe('campaign prompt', () => {
  it('offers approve all, reject all and one button per pool, valued <campaign>/<pool>', () => {
    const message = campaignPrompt(campaign(['proposed', 'proposed', 'proposed']), ctx);
    const buttons = buttonsOf(message.blocks);
    assert.deepEqual(
      buttons.map((b) => [b['action_id'], b['value']]),
      [
        [SLACK_ACTION.campaignApprove, 'c-abc123'],
        [SLACK_ACTION.reject, 'c-abc123'],
        [SLACK_ACTION.campaignApprovePool, 'c-abc123/blue'],
        [SLACK_ACTION.campaignApprovePool, 'c-abc123/green'],
      ],
    );
    // Slack wants action ids unique within a block: each pool button sits in its own block.
    const perBlock = message.blocks
      .filter((b) => b.type === 'actions')
      .map((b) => (b as unknown as { elements: Json[] }).elements.map((e) => e['action_id']));
    for (const ids of perBlock) assert.equal(new Set(ids).size, ids.length);
  });

  it('is plain once every request has ended', () => {
    assert.deepEqual(actionIds(campaignPrompt(campaign(['done', 'failed', 'rejected']), ctx)), []);
  });

  it('counts the nodes it could not list instead of overflowing', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({
      ...byState.proposed,
      id: `r-${String(i).padStart(6, '0')}`,
      node: `ip-10-0-${i}-1.eu-west-1.compute.internal`,
      campaign: 'c-big',
    }));
    const text = JSON.stringify(campaignPrompt(many, ctx));
    assert.match(text, /… and \d+ more nodes/);
    assert.match(text, /Approve all 400/);
  });

  it('lists a failed node first, so the digest of a big campaign never hides it among the more', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({
      ...byState.done,
      id: `r-${String(i).padStart(6, '0')}`,
      node: `ip-10-0-${i}-1.eu-west-1.compute.internal`,
      campaign: 'c-big',
    }));
    many[399] = { ...byState.failed, ...many[399]!, state: 'failed', failure: 'kubelet gone' };
    const nodes = JSON.stringify(
      campaignPrompt(many, ctx).blocks?.find((b) => b.block_id === 'nodes'),
    );
    assert.match(nodes, /^[^•]*• `ip-10-0-399-1[^•]*failed: kubelet gone/);
    assert.match(nodes, /… and \d+ more nodes/);
  });
});

describe('mrkdwn escaping', () => {
  const hostile = '<!channel> & <https://evil.example|click> <@U0ADMIN>';
  const request: MaintenanceRequest = {
    ...byState.failed,
    node: hostile,
    reason: hostile,
    failure: hostile,
    campaign: hostile,
    pool: hostile,
  };
  const rendered: [string, unknown][] = [
    ['prompt', requestPrompt(request, ctx)],
    ['proposed prompt', requestPrompt({ ...request, state: 'proposed' }, ctx)],
    ['campaign', campaignPrompt([{ ...request, state: 'proposed' }], ctx)],
    ['reply', threadReply({ ...events[9]!, node: hostile, reason: hostile, detail: hostile })],
    ['drain question', drainQuestion({ ...byState.running, node: hostile })],
    ['details', detailsModal(request, { ...preview, evict: [hostile], blockers: [hostile] })],
    ['reject modal', rejectModal({ campaign: hostile })],
  ];
  for (const [name, value] of rendered) {
    it(`${name}: no interpolated value reaches Slack as a mention or link`, () => {
      const texts = mrkdwnTexts(value);
      assert.ok(texts.length > 0);
      for (const text of texts) {
        assert.doesNotMatch(text, /<!channel>|<https:|<@U0ADMIN>/, text);
        assert.doesNotMatch(text, /&(?!amp;|lt;|gt;)/, text);
      }
    });
  }

  it('escapes exactly &, < and > (other characters would show as entities)', () => {
    const table: [string, string][] = [
      ['a & b', 'a &amp; b'],
      ['<x>', '&lt;x&gt;'],
      ['it\'s "quoted" *bold*', 'it\'s "quoted" *bold*'],
      ['&amp;', '&amp;amp;'],
    ];
    for (const [input, output] of table) assert.equal(esc(input), output);
  });
});

describe('modals', () => {
  it('reject: callback, input ids and the target in private_metadata', () => {
    const view = rejectModal({ requestId: 'r-7f3a9c' });
    assert.equal(view.callback_id, SLACK_VIEW.reject);
    assert.deepEqual(JSON.parse(view.private_metadata ?? ''), { requestId: 'r-7f3a9c' });
    const input = view.blocks.find((b) => b.type === 'input') as unknown as Json;
    assert.equal(input['block_id'], REJECT_REASON.block);
    assert.equal((input['element'] as Json)['action_id'], REJECT_REASON.action);
  });

  it('details: callback and the request id in private_metadata, history shown', () => {
    const view = detailsModal(byState.done);
    assert.equal(view.callback_id, SLACK_VIEW.details);
    assert.deepEqual(JSON.parse(view.private_metadata ?? ''), { requestId: byState.done.id });
    assert.match(JSON.stringify(view), /verifying → done/);
  });
});
