/**
 * Slack messages when one app serves several clusters (issue 22): every button carries its cluster
 * (`prod-eu/r-…`), the drain question and thread replies name it; and a value is read back into
 * its cluster and the one-cluster value, an old bare value naming none. Without `several` the
 * messages are the golden files' (slack-golden.test.ts), unchanged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  campaignPrompt,
  drainQuestion,
  rejectModal,
  requestPrompt,
  threadReply,
} from '../../../templates/slack/index.js';
import { clusterValue, readClusterValue } from '../../../templates/slack/ids.js';
import { byState, campaign, ctx, events } from './slack-fixtures.js';

const valuesOf = (blocks: unknown): string[] =>
  [...JSON.stringify(blocks).matchAll(/"value":"([^"]*)"/g)].map((m) => m[1]!);

describe('Slack messages with several clusters', () => {
  const several = { ...ctx, several: true };

  it('puts the cluster in front of every button value of a request prompt', () => {
    const request = byState.proposed;
    const values = valuesOf(requestPrompt(request, several).blocks);
    assert.equal(values.length, 4);
    for (const value of values) assert.equal(value, `prod-eu/${request.id}`);
    assert.deepEqual(new Set(valuesOf(requestPrompt(request, ctx).blocks)), new Set([request.id]));
  });

  it('puts it in front of a campaign’s values, pools included', () => {
    const requests = campaign(['proposed', 'proposed', 'proposed']).map((r, i) => ({
      ...r,
      pool: i === 0 ? 'blue' : 'green',
    }));
    const id = requests[0]!.campaign!;
    const values = valuesOf(campaignPrompt(requests, several).blocks);
    assert.deepEqual(values, [
      `prod-eu/${id}`,
      `prod-eu/${id}`,
      `prod-eu/${id}/blue`,
      `prod-eu/${id}/green`,
    ]);
    assert.deepEqual(
      values.map((v) => readClusterValue(v)),
      [
        { cluster: 'prod-eu', value: id },
        { cluster: 'prod-eu', value: id },
        { cluster: 'prod-eu', value: `${id}/blue` },
        { cluster: 'prod-eu', value: `${id}/green` },
      ],
    );
  });

  it('names the cluster in the drain question and its buttons, and in thread replies', () => {
    const running = byState.running;
    const question = drainQuestion(running, { cluster: 'prod-eu' });
    assert.match(JSON.stringify(question.blocks), /`node-\d+` in `prod-eu` is stalled/);
    for (const value of valuesOf(question.blocks)) assert.equal(value, `prod-eu/${running.id}`);
    const reply = threadReply(events[0]!, { several: true });
    assert.match(reply.text, new RegExp(`\`${events[0]!.cluster}\` · `));
    assert.doesNotMatch(threadReply(events[0]!).text, /`prod-eu` · /);
  });

  it('says in the reject modal which cluster, and carries it back in the metadata', () => {
    const modal = rejectModal({ requestId: 'r-7f3a9c', cluster: 'prod-eu' });
    assert.match(JSON.stringify(modal.blocks), /request `r-7f3a9c` in `prod-eu`/);
    assert.deepEqual(JSON.parse(modal.private_metadata!), {
      cluster: 'prod-eu',
      requestId: 'r-7f3a9c',
    });
  });

  it('reads a value into its cluster; a bare id or campaign/pool names none', () => {
    assert.deepEqual(readClusterValue('staging/r-7f3a9c'), {
      cluster: 'staging',
      value: 'r-7f3a9c',
    });
    assert.deepEqual(readClusterValue('r-7f3a9c'), { value: 'r-7f3a9c' });
    assert.deepEqual(readClusterValue('c-0a1b2c/blue'), { value: 'c-0a1b2c/blue' });
    assert.deepEqual(readClusterValue('staging/c-0a1b2c/blue'), {
      cluster: 'staging',
      value: 'c-0a1b2c/blue',
    });
    assert.equal(clusterValue(undefined, 'r-7f3a9c'), 'r-7f3a9c');
    assert.equal(clusterValue('staging', 'r-7f3a9c'), 'staging/r-7f3a9c');
  });
});
