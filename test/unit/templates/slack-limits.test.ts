/**
 * Property test: whatever the cluster or people put into a request (huge names, thousands of pods,
 * unicode, mrkdwn control characters), every Slack message stays within Block Kit's limits, so Slack
 * never answers `invalid_blocks` and loses the prompt. The checker is the one the Web API stand-in uses.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Preview } from '../../../src/app/control/preview.js';
import { ACTIVE_STATES, FINAL_STATES, type MaintenanceRequest } from '../../../src/core/request.js';
import { EVENT_KINDS, type MaintenanceEvent } from '../../../src/core/events.js';
import {
  campaignPrompt,
  detailsModal,
  drainQuestion,
  rejectModal,
  requestPrompt,
  threadReply,
} from '../../../templates/slack/index.js';
import { blockKitViolations } from '../../support/slack-web-api.js';
import { NOW, byState } from './slack-fixtures.js';

// Short and huge strings, unicode (astral planes included) and mrkdwn's control characters.
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.string({ unit: fc.constantFrom('&', '<', '>', '*', '`', '😀', 'é', ' '), maxLength: 4000 }),
  fc.string({ minLength: 2000, maxLength: 12000 }),
);
const list = (max: number) => fc.array(text, { maxLength: max });
const state = fc.constantFrom(...ACTIVE_STATES, ...FINAL_STATES);

const request = fc
  .record({
    id: text,
    node: text,
    reason: text,
    failure: text,
    campaign: text,
    pool: text,
    state,
    targetVersion: text,
    waiting: fc.array(fc.record({ pod: text, reason: text }), { maxLength: 60 }),
    blocked: list(40),
    action: fc.constantFrom('reboot' as const, 'upgrade' as const),
  })
  .map((r): MaintenanceRequest => ({
    ...byState.running,
    id: r.id,
    node: r.node,
    reason: r.reason,
    failure: r.failure,
    campaign: r.campaign,
    pool: r.pool,
    state: r.state,
    action: r.action,
    targetVersion: r.targetVersion,
    blockedReasons: r.blocked,
    drain: { total: 9999, evicted: 1, waitingOn: r.waiting, message: r.reason },
    history: [{ from: null, to: r.state, at: NOW.toISOString(), by: r.node, note: r.reason }],
  }));

const preview = fc
  .record({
    evict: list(3000),
    blockers: list(80),
    budgets: fc.array(fc.record({ name: text, pods: list(200) }), { maxLength: 80 }),
    packages: list(500),
    warnings: list(10),
    schedule: list(200),
    errors: list(20),
  })
  .map((p): Preview => ({
    node: 'n',
    at: NOW.toISOString(),
    rebootRequiredSince: '2026-11-21T20:00:00Z',
    packages: p.packages,
    evict: p.evict,
    skipped: [],
    warnings: p.warnings,
    budgets: p.budgets,
    blockers: p.blockers,
    window: { open: false, nextOpening: 'Sat 02:00 UTC', schedule: p.schedule },
    errors: p.errors,
  }));

/** Slack's own checks, plus the undocumented total (`msg_blocks_too_long` at about 12k characters). */
function ok(args: Record<string, unknown>) {
  assert.deepEqual(blockKitViolations(args), []);
  const blocks = (args['blocks'] ?? (args['view'] as { blocks?: unknown } | undefined)?.blocks) as
    { text?: { text?: string } }[] | undefined;
  const total = (blocks ?? []).reduce((n, b) => n + (b.text?.text?.length ?? 0), 0);
  assert.ok(total <= 12_000, `${total} characters of block text`);
  const meta = (args['view'] as { private_metadata?: string } | undefined)?.private_metadata;
  if (meta !== undefined) JSON.parse(meta);
}
const RUNS = { numRuns: 40 };

describe('Block Kit limits hold for any input', () => {
  it('request prompt in every state, with any preview', () => {
    fc.assert(
      fc.property(request, preview, text, (r, p, cluster) => {
        const message = requestPrompt(r, { cluster, timeZone: 'UTC', now: NOW, preview: p });
        ok({ ...message });
        assert.ok(message.text.length <= 3000);
      }),
      RUNS,
    );
  });

  it('campaign prompt with up to 300 nodes in many pools', () => {
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 300 }), (requests) => {
        ok({ ...campaignPrompt(requests, { cluster: 'c', timeZone: 'UTC', now: NOW }) });
      }),
      { numRuns: 15 },
    );
  });

  it('thread replies, drain questions and modals', () => {
    const event = fc.record({
      kind: fc.constantFrom(...EVENT_KINDS),
      node: text,
      reason: text,
      detail: text,
      approver: text,
      targetVersion: text,
    });
    fc.assert(
      fc.property(request, preview, event, list(40), (r, p, e, mention) => {
        const full: MaintenanceEvent = { ...e, cluster: 'c', requestId: r.id, action: r.action };
        ok({ ...threadReply(full) });
        ok({ ...drainQuestion(r, { mention, now: NOW }) });
        ok({ view: detailsModal(r, p) });
        ok({ view: rejectModal({ requestId: r.id, campaign: r.node }) });
      }),
      RUNS,
    );
  });
});
