/**
 * A campaign prompt carries the per-node preflight in summary (ADR 0042): budgets that would refuse
 * an eviction now and on which nodes, kubectl's warnings (pods that cannot be evicted as they are),
 * blockers, whether the work fits the window; nothing once no node waits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Preview } from '../../../src/app/control/preview.js';
import { campaignPrompt } from '../../../templates/slack/index.js';
import { campaignPreflight } from '../../../templates/slack/campaign-preflight.js';
import { campaign, ctx, preview } from './slack-fixtures.js';

const onNode = (node: string, patch: Partial<Preview> = {}): Preview => ({
  ...preview,
  node,
  ...patch,
});
const textOf = (blocks: unknown[]) => JSON.stringify(blocks);

describe('campaign preflight', () => {
  it('names each blocking PDB with its nodes, the warnings, and whether the work fits', () => {
    const text = campaignPreflight({
      previews: [
        onNode('node-1'),
        onNode('node-2', { budgets: [], warnings: [], blockers: [] }),
        onNode('node-3', {
          window: {
            ...preview.window,
            open: true,
            fit: 'does not fit: about 40 min, window closes in 10 min',
          },
        }),
      ],
      notPreviewed: 2,
    })!;
    assert.match(text, /\*Preflight\* \(3 nodes; 2 more not previewed\): 9 pods would be evicted/);
    assert.match(text, /PDBs that would block now: `payments\/api` \(`node-1`, `node-3`\)/);
    assert.match(text, /deleting Pods with local storage: shop\/web-2 \(`node-1`, `node-3`\)/);
    assert.match(text, /Window: does not fit for `node-3`: does not fit: about 40 min/);
  });

  it('says when every pod passes a dry-run eviction', () => {
    const text = campaignPreflight({
      previews: [onNode('node-1', { budgets: [], warnings: [], blockers: [] })],
      notPreviewed: 0,
    })!;
    assert.match(text, /every pod passes a dry-run eviction now/);
    assert.equal(campaignPreflight({ previews: [], notPreviewed: 0 }), undefined);
  });

  it('is in the campaign prompt while nodes wait, and gone once they have all ended', () => {
    const preflight = { previews: [onNode('node-1')], notPreviewed: 0 };
    const waiting = campaignPrompt(campaign(['proposed', 'approved']), { ...ctx, preflight });
    assert.match(textOf(waiting.blocks), /PDBs that would block now: `payments\/api`/);
    const ended = campaignPrompt(campaign(['done', 'failed']), { ...ctx, preflight });
    assert.doesNotMatch(textOf(ended.blocks), /Preflight/);
  });
});
