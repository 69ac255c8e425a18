/**
 * One campaign of `nodes` reboots on a fleet sim, told through the real Slack notifier and the real
 * Bolt app against the Web API stand-in, from the proposal through one "Approve all" click to every
 * node done: the tick proposes every marked node as one campaign, UALICE clicks Approve all on its
 * prompt, and ticks roll the fleet `concurrency` at a time with the executor in process. What comes
 * back is every Slack call it made, by kind, so the bench (bench/slack-campaign.ts) and the test
 * (test/integration/slack/campaign-scale.test.ts) read the same run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Notifier } from '../../src/app/control/ports.js';
import { runTick } from '../../src/app/control/tick.js';
import { createSlackNotifier, type SlackNotifier } from '../../src/adapters/slack/notifier.js';
import { ANN_REBOOT_REQUIRED_SINCE, LABEL_REBOOT_REQUIRED } from '../../src/core/names.js';
import { silentLogger } from '../../src/log.js';
import { SLACK_ACTION } from '../../templates/slack/ids.js';
import { R } from '@kubemaint/kubesim';
import {
  executorSettings,
  realJobFor,
  requestOn,
  requestsOn,
  runJobsInProcess,
  type InProcessJobs,
} from './in-process-executor.js';
import { CHANNEL, startHarness, type Harness } from './slack-app.js';
import type { SlackCall } from './slack-web-api.js';
import { nodeNames } from './executor-fleet.js';
import { startTestSim, type TestSim } from './sim.js';

export interface CampaignCalls {
  nodes: number;
  concurrency: number;
  /** Web API calls (`chat.postMessage` …) and `response_url` posts, from the first proposal on. */
  byMethod: Record<string, number>;
  /** Top-level posts (prompts) and replies in a thread, of `chat.postMessage`. */
  prompts: number;
  threadReplies: number;
  webApiCalls: number;
  /** Web API calls ÷ nodes; `response_url` posts are answers to a click, not Web API calls. */
  perNode: number;
  /** States the requests ended in (every one `done` when the roll worked). */
  states: Record<string, number>;
  ticks: number;
  wallS: number;
  /** Block Kit violations the stand-in saw (none when Slack would accept every payload). */
  violations: string[];
  /** The campaign prompt's last text, as people see it at the end. */
  lastPrompt: string;
}

export interface CampaignOptions {
  nodes: number;
  concurrency: number;
  /** Sim clock scale: high, so the roll takes seconds of wall time. */
  scale?: number;
  /** Give up (throw) after this much wall time. */
  wallBudgetMs?: number;
  /** The notifier's digest delay (SlackNotifierOptions.digestDelayMs). */
  digestDelayMs?: number;
  /** Told the requests' states about every `progressEveryMs` of the roll (a long bench's log). */
  progress?: (line: string) => void;
  /** @default 60_000 */
  progressEveryMs?: number;
}

export async function runSlackCampaign(options: CampaignOptions): Promise<CampaignCalls> {
  const { nodes, concurrency } = options;
  const sim = await startTestSim({
    scenario: 'fleet',
    nodes,
    podsPerNode: 1,
    scale: options.scale ?? 200,
    delays: {
      // The no-op Job's pod stays active while the in-process executor plays its container.
      jobPodRunMs: 24 * 3_600_000,
      rebootDowntimeMs: 5_000,
      rebootIssueDelayMs: 10_000,
      // Hardly any heartbeats: at scale 200 a kubelet's every 10 s would be 20 node writes a wall
      // second per 100 nodes, which would crowd the ticks out (a rebooted node reports at once).
      heartbeatMs: 24 * 3_600_000,
      nodeMonitorGraceMs: 72 * 3_600_000,
      // With no heartbeat to miss, the node controller's look at every node (each 5 s of sim
      // time, 25 ms of wall time at scale 200) finds nothing, and at 1,000 nodes it was half the
      // bench's CPU (a copy of every Node each time): once an hour of sim time.
      nodeMonitorPeriodMs: 3_600_000,
    },
  });
  let slack: SlackNotifier | undefined;
  let h: Harness | undefined;
  let jobs: InProcessJobs | undefined;
  try {
    const names = markEveryNode(sim);
    const exec = executorSettings(concurrency);
    const forward: Notifier = { notify: async (event, request) => slack?.notify(event, request) };
    h = await startHarness(
      sim,
      {
        lock: { concurrency, pools: {} },
        blockers: { podSelectors: [], maxUnhealthyNodes: { count: concurrency } },
        nodeTimeoutMs: { reboot: 24 * 3_600_000, upgrade: 24 * 3_600_000 },
        jobFor: realJobFor(exec),
      },
      { notifier: forward },
    );
    const deps = h.deps;
    slack = createSlackNotifier({
      channel: CHANNEL,
      web: { token: 'xoxb-test', slackApiUrl: h.api.apiUrl, retries: 2 },
      cluster: deps.cluster,
      clock: deps.clock,
      log: silentLogger(),
      clusterName: 'sim',
      timeZone: 'UTC',
      ...(options.digestDelayMs !== undefined ? { digestDelayMs: options.digestDelayMs } : {}),
    });
    jobs = runJobsInProcess(sim, exec);
    const started = Date.now();
    const deadline = started + (options.wallBudgetMs ?? 600_000);

    let ticks = 1;
    const first = await runTick(deps);
    if (first.proposed.length !== nodes)
      throw new Error(`the tick proposed ${first.proposed.length} of ${nodes} nodes`);
    await slack.flush();
    const prompt = h.api.callsOf('chat.postMessage').find((c) => !c.args['thread_ts']);
    const campaign = requestOn(sim, names[0]!)?.campaign;
    if (!prompt || !campaign) throw new Error('no campaign prompt was posted');
    const ts = String(prompt.response?.['ts']);
    await h.click(SLACK_ACTION.campaignApprove, campaign, 'UALICE', {
      ts,
      blocks: prompt.args['blocks'] as unknown[],
    });
    await h.slack.idle();
    options.progress?.(
      `${Math.round((Date.now() - started) / 1_000)} s: ${nodes} proposed as one campaign and approved`,
    );

    let said = Date.now();
    for (;;) {
      await runTick(deps);
      ticks++;
      const requests = requestsOn(sim);
      const states = names.map((n) => requests.get(n)?.state);
      if (states.every((s) => s === 'done' || s === 'failed')) break;
      if (options.progress && Date.now() - said >= (options.progressEveryMs ?? 60_000)) {
        said = Date.now();
        const s = Math.round((said - started) / 1_000);
        options.progress(`${s} s, ${ticks} ticks: ${JSON.stringify(countOf(states))}`);
      }
      if (Date.now() > deadline)
        throw new Error(`not done in time: ${JSON.stringify(countOf(states))}`);
      await sleep(20);
    }
    await slack.flush();
    await h.slack.idle();
    const wallS = Math.round((Date.now() - started) / 100) / 10;
    const ended = requestsOn(sim);
    return summarise(h.api.calls, {
      nodes,
      concurrency,
      ticks,
      wallS,
      states: countOf(names.map((n) => ended.get(n)?.state)),
      prompt: ts,
    });
  } finally {
    await slack?.flush(5_000);
    await jobs?.stop();
    await h?.close();
    await sim.close();
  }
}

/** Mark every node of the fleet reboot-required since an hour ago (the scenario marks a few). */
function markEveryNode(sim: TestSim): string[] {
  const since = new Date(sim.clock.now().getTime() - 3_600_000).toISOString();
  const names = nodeNames(sim);
  for (const name of names)
    sim.store.mutate(R.nodes, undefined, name, (n) => {
      n.metadata.labels = { ...n.metadata.labels, [LABEL_REBOOT_REQUIRED]: 'true' };
      n.metadata.annotations = { ...n.metadata.annotations, [ANN_REBOOT_REQUIRED_SINCE]: since };
    });
  return names;
}

function summarise(
  calls: readonly SlackCall[],
  run: {
    nodes: number;
    concurrency: number;
    ticks: number;
    wallS: number;
    states: Record<string, number>;
    prompt: string;
  },
): CampaignCalls {
  const byMethod: Record<string, number> = {};
  for (const call of calls) byMethod[call.method] = (byMethod[call.method] ?? 0) + 1;
  const posts = calls.filter((c) => c.method === 'chat.postMessage');
  const webApiCalls = calls.filter((c) => c.method !== 'response_url').length;
  const edits = calls.filter((c) => c.method === 'chat.update' && c.args['ts'] === run.prompt);
  return {
    nodes: run.nodes,
    concurrency: run.concurrency,
    byMethod,
    prompts: posts.filter((c) => !c.args['thread_ts']).length,
    threadReplies: posts.filter((c) => c.args['thread_ts']).length,
    webApiCalls,
    perNode: Math.round((webApiCalls / run.nodes) * 100) / 100,
    states: run.states,
    ticks: run.ticks,
    wallS: run.wallS,
    violations: calls.flatMap((c) => c.violations.map((v) => `${c.method}: ${v}`)),
    lastPrompt: JSON.stringify(edits.at(-1)?.args['blocks'] ?? []),
  };
}

function countOf(states: readonly (string | undefined)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of states) counts[s ?? 'none'] = (counts[s ?? 'none'] ?? 0) + 1;
  return counts;
}
