/**
 * Benchmark: 200 approval clicks, 20 in flight, on the real Bolt app over HTTP (signed requests, the
 * Web API stand-in) in front of a `fleet` sim where every node has a proposed reboot. Measures how
 * fast Slack gets its acknowledgement (p50/p99/max; Slack wants it within 3 s), how long until every
 * approval is written, and, after one tick, that each request has exactly one executor Job.
 * Run: `npx tsx bench/slack-clicks.ts [clicks] [inFlight]`. Prints a markdown table, then JSON.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BatchV1Api, KubeConfig } from '@kubernetes/client-node';
import { requestPrompt } from '../templates/slack/index.js';
import { requestMaintenance } from '../src/app/control/commands.js';
import { runTick } from '../src/app/control/tick.js';
import { createSlackApp } from '../src/adapters/slack/app.js';
import { SLACK_ACTION } from '../templates/slack/ids.js';
import { jobName } from '../src/core/names.js';
import type { MaintenanceRequest } from '../src/core/request.js';
import { createLogger, silentLogger } from '../src/log.js';
import { testControlDeps, testControlSettings } from '../test/support/control.js';
import { interactionBody, slackHeaders } from '../test/support/slack-sign.js';
import { startSlackWebApi } from '../test/support/slack-web-api.js';

export interface SlackClicksResult {
  clicks: number;
  inFlight: number;
  ackMs: { p50: number; p99: number; max: number };
  non200: number;
  /** From the first click until every approval was written (the work after the acks). */
  allApprovedMs: number;
  approved: number;
  tickMs: number;
  jobs: number;
  requestsWithExactlyOneJob: number;
  blockKitViolations: number;
}

const SECRET = 'bench-signing-secret';
const ROOT = resolve(import.meta.dirname, '..');

/**
 * The sim runs in its own process, as an apiserver would: the figures are the Slack app's, not the
 * sim's kubelets competing for the same event loop. Real time (scale 1): heartbeats every 10 s, so
 * node writes race them as rarely as in a real cluster.
 */
async function startSimProcess(
  nodes: number,
  kubeconfigPath: string,
): Promise<{ kubeconfigPath: string; clock: { now(): Date }; stop(): void }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'sim',
      '--scenario',
      'fleet',
      '--nodes',
      String(nodes),
      '--pods-per-node',
      '2',
      '--kubeconfig',
      kubeconfigPath,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((ready, fail) => {
    let out = '';
    const look = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('kubemaint sim ready')) ready();
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => fail(new Error(`sim exited (${code}): ${out.slice(-2000)}`)));
  });
  return {
    kubeconfigPath,
    clock: { now: () => new Date() },
    stop: () => void child.kill('SIGTERM'),
  };
}
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const round = (ms: number) => Math.round(ms * 10) / 10;

export async function runSlackClicksBench(clicks = 200, inFlight = 20): Promise<SlackClicksResult> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-slack-bench-'));
  const sim = await startSimProcess(clicks, join(dir, 'kubeconfig'));
  const api = await startSlackWebApi();
  const settings = testControlSettings({
    approval: { users: ['UALICE'], groups: [] },
    // Every approved request may start in the one tick, so the tick shows one Job per request.
    lock: { concurrency: clicks, pools: {} },
    blockers: { podSelectors: [], maxUnhealthyNodes: { percent: 100 } },
  });
  const deps = testControlDeps(sim, { settings, notifier: { notify: async () => undefined } });
  const slack = createSlackApp({
    deps,
    settings: { command: '/maint', allowedChannels: [], cluster: 'fleet' },
    signingSecret: SECRET,
    botToken: 'xoxb-bench',
    botId: 'BBOT',
    botUserId: 'UBOT',
    slackApiUrl: api.apiUrl,
    receiver: { kind: 'http', port: 0, host: '127.0.0.1' },
    log: process.env['BENCH_LOG'] ? createLogger({ level: 'warn' }) : silentLogger(),
  });
  try {
    const { port } = await slack.start();
    const url = `http://127.0.0.1:${port}/slack/events`;
    const requests: MaintenanceRequest[] = [];
    for (const node of await deps.cluster.listNodes()) {
      const result = await requestMaintenance(deps, {
        node: node.name,
        action: 'reboot',
        by: { kind: 'person', id: 'UREQ' },
      });
      if (result.request) requests.push(result.request);
    }
    const ctx = { cluster: 'fleet', timeZone: 'UTC', now: deps.clock.now() };
    const bodies = requests.slice(0, clicks).map((r, i) => {
      const ts = `1700000000.${String(i).padStart(6, '0')}`;
      return interactionBody({
        type: 'block_actions',
        team: { id: 'T0TEST', domain: 'test' },
        user: { id: 'UALICE', username: 'alice', name: 'alice', team_id: 'T0TEST' },
        api_app_id: 'A0TEST',
        token: 'deprecated',
        trigger_id: `1.${i}.trigger`,
        response_url: api.responseUrl(),
        container: { type: 'message', message_ts: ts, channel_id: 'CMAINT', is_ephemeral: false },
        channel: { id: 'CMAINT', name: 'maintenance' },
        message: { type: 'message', ts, text: '', blocks: requestPrompt(r, ctx).blocks },
        actions: [
          {
            type: 'button',
            action_id: SLACK_ACTION.approve,
            block_id: 'actions',
            value: r.id,
            text: { type: 'plain_text', text: 'Approve' },
            action_ts: '1700000000.1',
          },
        ],
      });
    });
    const latencies: number[] = [];
    let non200 = 0;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!;
          const sent = performance.now();
          const response = await fetch(url, {
            method: 'POST',
            headers: slackHeaders(SECRET, body),
            body,
          });
          await response.arrayBuffer();
          latencies.push(performance.now() - sent);
          if (response.status !== 200) non200 += 1;
        }
      }),
    );
    await slack.idle();
    if (process.env['BENCH_LOG'])
      for (const c of api.callsOf('response_url'))
        process.stderr.write(`${String(c.args['text'])}\n`);
    const allApprovedMs = performance.now() - started;
    const current = await deps.cluster.listNodes();
    const approved = current.filter((n) => n.request?.state === 'approved').length;
    const tickStarted = performance.now();
    await runTick(deps);
    const tickMs = performance.now() - tickStarted;
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const jobs = (await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: 'kubemaint' }))
      .items;
    const names = jobs.map((j) => j.metadata?.name ?? '');
    const exactlyOne = requests.filter(
      (r) => names.filter((n) => n === jobName(r.node, r.id)).length === 1,
    ).length;
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      clicks: bodies.length,
      inFlight,
      ackMs: {
        p50: round(pct(sorted, 50)),
        p99: round(pct(sorted, 99)),
        max: round(sorted.at(-1) ?? 0),
      },
      non200,
      allApprovedMs: Math.round(allApprovedMs),
      approved,
      tickMs: Math.round(tickMs),
      jobs: jobs.length,
      requestsWithExactlyOneJob: exactlyOne,
      blockKitViolations: api.calls.filter((c) => c.violations.length > 0).length,
    };
  } finally {
    await slack.stop();
    await api.close();
    sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function markdownTable(r: SlackClicksResult): string {
  return [
    '| clicks | in flight | ack p50 | ack p99 | ack max | non-200 | all approved after | approved | tick | Jobs | requests with exactly one Job | Block Kit violations |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${r.clicks} | ${r.inFlight} | ${r.ackMs.p50} ms | ${r.ackMs.p99} ms | ${r.ackMs.max} ms | ${r.non200} | ${r.allApprovedMs} ms | ${r.approved} | ${r.tickMs} ms | ${r.jobs} | ${r.requestsWithExactlyOneJob} | ${r.blockKitViolations} |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [clicks, inFlight] = process.argv.slice(2).map(Number);
  const result = await runSlackClicksBench(clicks || undefined, inFlight || undefined);
  process.stdout.write(`${markdownTable(result)}\n\n${JSON.stringify(result, null, 2)}\n`);
}
