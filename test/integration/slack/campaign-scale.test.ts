/**
 * Issue 34, "a 1,000-node campaign uses ≤ 1.2 Slack Web API calls per node", on 100 nodes (the bench,
 * bench/slack-campaign.ts, runs the 1,000): one campaign proposed by a tick, approved by one "Approve
 * all" click on its prompt in the real Bolt app, and rolled 20 at a time to every node done, with the
 * real Slack notifier against the Web API stand-in. One prompt, edited in place as the campaign's
 * digest; no reply per node; the last edit shows every node done; every payload within Block Kit's
 * limits. Not timed: the bound is on calls, which the notifier's pacing keeps whatever the pace.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSlackCampaign } from '../../support/slack-campaign.js';

const NODES = 100;

describe('a 100-node campaign on Slack', () => {
  it('uses at most 1.2 Web API calls per node from proposal to every node done', async () => {
    const run = await runSlackCampaign({ nodes: NODES, concurrency: 20, wallBudgetMs: 480_000 });
    assert.deepEqual(run.states, { done: NODES });
    assert.equal(run.prompts, 1, 'one prompt for the campaign');
    assert.equal(run.threadReplies, 0, 'no node failed, so nothing was said in the thread');
    assert.ok(
      run.perNode <= 1.2,
      `${run.webApiCalls} Web API calls for ${NODES} nodes (${run.perNode} a node): ${JSON.stringify(run.byMethod)}`,
    );
    assert.match(run.lastPrompt, new RegExp(`${NODES} done`));
    assert.deepEqual(run.violations, []);
  });
});
