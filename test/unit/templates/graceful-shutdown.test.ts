/**
 * The kubelet's graceful shutdown in what people read before a reboot (ADR 0049): the per-node
 * prompt and its details modal, the campaign preflight, and `kubemaint status` warn when the node's
 * shutdownGracePeriod is 0 or unknown, and say the setting when it is set; an upgrade says nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Preview } from '../../../src/app/control/preview.js';
import type { FleetNode } from '../../../src/app/control/fleet-view.js';
import type { GracefulShutdown } from '../../../src/core/graceful-shutdown.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { campaignPrompt, detailsModal, requestPrompt } from '../../../templates/slack/index.js';
import { campaignPreflight } from '../../../templates/slack/campaign-preflight.js';
import { statusJson, statusTable } from '../../../templates/cli-status.js';
import { byState, campaign, ctx, preview } from './slack-fixtures.js';

const FIX =
  'pods will not be terminated gracefully on reboot: set shutdownGracePeriod in the kubelet config';
const ON: GracefulShutdown = { state: 'on', period: '20s', critical: '5s', source: 'configz' };
const OFF: GracefulShutdown = { state: 'off', period: '0s', source: 'configz' };
const UNKNOWN: GracefulShutdown = {
  state: 'unknown',
  why: 'the node has no kubemaint.io/shutdown-grace-period annotation',
};
const text = (value: unknown) => JSON.stringify(value);
const withGrace = (gracefulShutdown: GracefulShutdown, node = 'node-2'): Preview => ({
  ...preview,
  node,
  gracefulShutdown,
});

describe('the per-node prompt', () => {
  it('warns when shutdownGracePeriod is 0, naming the source and the fix', () => {
    const prompt = requestPrompt(byState.proposed, { ...ctx, preview: withGrace(OFF) });
    assert.ok(
      text(prompt.blocks).includes(
        `:warning: *Graceful shutdown:* shutdownGracePeriod is 0s (from configz): ${FIX}`,
      ),
    );
  });

  it('warns when it is unknown, saying why', () => {
    const prompt = requestPrompt(byState.approved, { ...ctx, preview: withGrace(UNKNOWN) });
    assert.match(
      text(prompt.blocks),
      /shutdownGracePeriod is unknown: the node has no kubemaint.io\/shutdown-grace-period annotation/,
    );
  });

  it('says the setting, without a warning, when it is set', () => {
    const prompt = text(requestPrompt(byState.proposed, { ...ctx, preview: withGrace(ON) }).blocks);
    assert.match(prompt, /\*Graceful shutdown:\* 20s \(critical pods 5s\), from configz/);
    assert.doesNotMatch(prompt, /:warning: \*Graceful shutdown/);
  });

  it('says the kubelet shuts pods down by pod priority, with the total and each group', () => {
    const byPriority: GracefulShutdown = {
      ...ON,
      period: '30s',
      critical: '10s',
      byPodPriority: [
        { priority: 0, period: '20s' },
        { priority: 2000000000, period: '10s' },
      ],
    };
    const prompt = text(
      requestPrompt(byState.proposed, { ...ctx, preview: withGrace(byPriority) }).blocks,
    );
    assert.ok(
      prompt.includes(
        '*Graceful shutdown:* 30s by pod priority (priority ≥0: 20s, ≥2000000000: 10s; critical pods 10s), from configz',
      ),
      prompt,
    );
    assert.doesNotMatch(prompt, /:warning: \*Graceful shutdown/);
  });

  it('says nothing of it for a kubelet upgrade, or once the request has started', () => {
    const upgrade: MaintenanceRequest = {
      ...byState.proposed,
      action: 'upgrade',
      targetVersion: 'v1.31.4',
    };
    assert.doesNotMatch(
      text(requestPrompt(upgrade, { ...ctx, preview: withGrace(OFF) }).blocks),
      /Graceful shutdown/,
    );
    assert.doesNotMatch(
      text(requestPrompt(byState.running, { ...ctx, preview: withGrace(OFF) }).blocks),
      /Graceful shutdown/,
    );
  });

  it('the details modal warns too', () => {
    assert.match(text(detailsModal(byState.proposed, withGrace(OFF))), /shutdownGracePeriod is 0s/);
  });
});

describe('the campaign preflight', () => {
  it('names the nodes without graceful shutdown in one line', () => {
    const summary = campaignPreflight({
      previews: [withGrace(OFF, 'node-1'), withGrace(ON, 'node-2'), withGrace(UNKNOWN, 'node-3')],
      notPreviewed: 0,
    })!;
    assert.ok(
      summary.includes(
        `:warning: shutdownGracePeriod 0 or unknown on \`node-1\`, \`node-3\`: ${FIX}`,
      ),
      summary,
    );
  });

  it('is silent when every node has it set, and for nodes that are to be upgraded', () => {
    const allOn = campaignPreflight({ previews: [withGrace(ON, 'node-1')], notPreviewed: 0 })!;
    assert.doesNotMatch(allOn, /shutdownGracePeriod/);
    const upgrades = campaign(['proposed', 'proposed']).map((r) => ({
      ...r,
      action: 'upgrade' as const,
      targetVersion: 'v1.31.4',
    }));
    const preflight = {
      previews: [withGrace(OFF, 'node-1'), withGrace(OFF, 'node-2')],
      notPreviewed: 0,
    };
    assert.doesNotMatch(
      text(campaignPrompt(upgrades, { ...ctx, preflight }).blocks),
      /shutdownGracePeriod/,
    );
    const reboots = campaignPrompt(campaign(['proposed', 'proposed']), { ...ctx, preflight });
    assert.match(text(reboots.blocks), /shutdownGracePeriod 0 or unknown on `node-1`, `node-2`/);
  });
});

describe('kubemaint status', () => {
  const node = (name: string, gracefulShutdown: GracefulShutdown): FleetNode => ({
    name,
    marked: true,
    ready: 'True',
    unschedulable: false,
    gracefulShutdown,
  });
  const request = (over: Partial<MaintenanceRequest>): MaintenanceRequest => ({
    ...byState.proposed,
    ...over,
  });
  const view = {
    requests: [
      request({ id: 'r-000001', node: 'node-1' }),
      request({ id: 'r-000002', node: 'node-2' }),
      request({ id: 'r-000003', node: 'node-3', action: 'upgrade', targetVersion: 'v1.31.4' }),
      request({ id: 'r-000004', node: 'node-4', state: 'done' }),
    ],
    nodes: [node('node-1', OFF), node('node-2', ON), node('node-3', OFF), node('node-4', OFF)],
    pause: { paused: false },
    slots: [],
  };

  it('warns under a reboot still to come on a node without graceful shutdown, only there', () => {
    const table = statusTable(view, new Date('2026-11-22T02:00:00Z'));
    assert.ok(
      table.includes(`  r-000001 warning: shutdownGracePeriod is 0s (from configz): ${FIX}`),
      table,
    );
    assert.doesNotMatch(table, /r-00000[234] warning/);
  });

  it('carries the warning in --json', () => {
    const json = JSON.parse(statusJson(view)) as {
      requests: { id: string; gracefulShutdown?: string }[];
    };
    assert.deepEqual(
      json.requests.map((r) => [r.id, r.gracefulShutdown !== undefined]),
      [
        ['r-000001', true],
        ['r-000002', false],
        ['r-000003', false],
        ['r-000004', false],
      ],
    );
  });
});
