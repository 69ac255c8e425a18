/**
 * Golden files for the Slack messages: the prompt in every state, an upgrade, campaigns, thread
 * replies, the drain question and the modals. Regenerate with `UPDATE_GOLDEN=1` and review the diff.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { REQUEST_STATES_FOR_TEST } from './slack-states.js';
import {
  campaignPrompt,
  detailsModal,
  drainQuestion,
  rejectModal,
  requestPrompt,
  threadReply,
} from '../../../templates/slack/index.js';
import { blockKitViolations } from '../../support/slack-web-api.js';
import { NOW, byState, campaign, ctx, events, preview, upgrade } from './slack-fixtures.js';

const golden = (name: string) => new URL(`../../fixtures/slack/${name}.json`, import.meta.url);

const cases: { name: string; render: () => unknown }[] = [
  ...REQUEST_STATES_FOR_TEST.map((state) => ({
    name: `prompt-${state}`,
    render: () => requestPrompt(byState[state], ctx),
  })),
  { name: 'prompt-upgrade', render: () => requestPrompt(upgrade, { ...ctx, preview: undefined }) },
  {
    name: 'campaign-proposed',
    render: () => campaignPrompt(campaign(['proposed', 'proposed', 'proposed']), ctx),
  },
  {
    name: 'campaign-moving',
    render: () => campaignPrompt(campaign(['done', 'running', 'proposed', 'failed']), ctx),
  },
  {
    name: 'campaign-upgrade',
    render: () =>
      campaignPrompt(
        [upgrade, { ...upgrade, id: 'r-0c0fff', node: 'node-4' }].map((r) => ({
          ...r,
          campaign: 'c-upg001',
          blockedReasons: ['outside the maintenance windows; next opens Sat 02:00 UTC'],
        })),
        { ...ctx, preview: undefined, nextWindow: 'Sat 02:00 UTC' },
      ),
  },
  { name: 'campaign-ended', render: () => campaignPrompt(campaign(['done', 'rejected']), ctx) },
  { name: 'thread-replies', render: () => events.map((event) => threadReply(event)) },
  {
    name: 'drain-question',
    render: () =>
      drainQuestion(byState.running, { mention: ['U0ALICE', 'S0OPS'], now: NOW, timeZone: 'UTC' }),
  },
  { name: 'reject-modal', render: () => rejectModal({ requestId: 'r-7f3a9c' }) },
  { name: 'reject-modal-campaign', render: () => rejectModal({ campaign: 'c-abc123' }) },
  { name: 'details-modal', render: () => detailsModal(byState.running, preview) },
  {
    // Every value a person or an agent controls, hostile (chat-injection.test.ts checks all kinds).
    name: 'prompt-hostile',
    render: () =>
      requestPrompt(
        {
          ...byState.proposed,
          node: '<!channel> @here `n`',
          reason: '<http://evil|click> @channel\n*Approved* by <@U0BOSS> & co',
          requestedBy: '<!here>',
        },
        { ...ctx, preview: { ...preview, packages: ['<!everyone> `pkg`', '@here'] } },
      ),
  },
];

describe('slack golden files', () => {
  for (const c of cases) {
    it(`${c.name} renders as recorded and within Block Kit's limits`, () => {
      const rendered = c.render();
      const text = `${JSON.stringify(rendered, null, 2)}\n`;
      if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(golden(c.name), text);
      assert.equal(text, readFileSync(golden(c.name), 'utf8'));
      const messages = Array.isArray(rendered) ? rendered : [rendered];
      for (const m of messages as Record<string, unknown>[]) {
        const args = m['type'] === 'modal' ? { view: m } : m;
        assert.deepEqual(blockKitViolations(args), []);
      }
    });
  }
});
