/**
 * Benchmark (issue 34): the Slack Web API calls of one campaign of 1,000 reboots, from the tick that
 * proposes them through one "Approve all" click to every node done (test/support/slack-campaign.ts:
 * the real notifier and Bolt app against the Web API stand-in, the fleet sim at a high clock scale,
 * the executor in process). Slack allows about one message a second per channel and chat.update
 * about 50 a minute, so the figure that matters is calls per node, not time.
 * Run: `npx tsx bench/slack-campaign.ts [nodes] [concurrency]`. Prints one JSON document.
 */
import { runSlackCampaign, type CampaignCalls } from '../test/support/slack-campaign.js';

export type { CampaignCalls };

export function runSlackCampaignBench(nodes = 1_000, concurrency = 100): Promise<CampaignCalls> {
  return runSlackCampaign({
    nodes,
    concurrency,
    scale: 200,
    wallBudgetMs: 3 * 3_600_000,
    // The roll takes tens of minutes at 1,000 nodes: say how far it got, on stderr (stdout is the
    // bench's document).
    progress: (line) => process.stderr.write(`slack-campaign: ${line}\n`),
  });
}

export function campaignTable(r: CampaignCalls): string {
  const other = Object.entries(r.byMethod)
    .filter(([method]) => !['chat.postMessage', 'chat.update', 'response_url'].includes(method))
    .map(([method, n]) => `${method} ${n}`)
    .join(', ');
  return [
    '| Nodes (slots) | Ended | Prompts | Thread replies | Digest edits (chat.update) | Other Web API calls | Web API calls a node | Answers to the click (response_url) | Ticks | Wall |',
    '| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |',
    `| ${r.nodes} (${r.concurrency}) | ${Object.entries(r.states)
      .map(([s, n]) => `${n} ${s}`)
      .join(
        ', ',
      )} | ${r.prompts} | ${r.threadReplies} | ${r.byMethod['chat.update'] ?? 0} | ${other || 'none'} | **${r.perNode}** | ${r.byMethod['response_url'] ?? 0} | ${r.ticks} | ${r.wallS} s |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [nodes, concurrency] = process.argv.slice(2).map(Number);
  const result = await runSlackCampaignBench(nodes || undefined, concurrency || undefined);
  process.stdout.write(`${JSON.stringify({ ...result, lastPrompt: undefined }, null, 2)}\n`);
  process.stdout.write(`${campaignTable(result)}\n`);
}
