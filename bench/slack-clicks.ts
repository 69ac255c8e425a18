/**
 * Benchmark: approval clicks on `kubemaint serve` (issue 20), as Slack sends them: N proposed reboots
 * on a fleet sim running in its own process (an apiserver stands apart from serve), the real `serve`
 * process with its Slack HTTP receiver, its tick loop and its watches, and signed `block_actions`
 * clicks on each request's Approve button, `inFlight` at once. A freeze keeps the approved requests
 * from starting, so the run measures the clicks, not drains.
 *
 * It reports how fast Slack gets its acknowledgement (p50/p95/p99/max, Slack wants it within 3 s),
 * how long until every approval is written, that each request has exactly one approval and no Job,
 * and, from a CPU profile of serve (`--cpu-prof`) restricted to the clicks, where serve's time went:
 * kubemaint's own code, Bolt and its HTTP stack, the Kubernetes client, Node itself, GC, idle.
 * Run: `npx tsx bench/slack-clicks.ts [clicks] [inFlight]`. Prints a markdown table, then JSON.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BatchV1Api, KubeConfig } from '@kubernetes/client-node';
import { listRequests } from '../src/app/control/commands.js';
import { LABEL_REBOOT_REQUIRED } from '../src/core/names.js';
import type { MaintenanceRequest } from '../src/core/request.js';
import { testControlDeps } from '../test/support/control.js';
import { startCli } from '../test/support/cli-process.js';
import { requestReader } from '../test/support/requests.js';
import { approveClickBody, slackHeaders } from '../test/support/slack-sign.js';
import { startSlackWebApi } from '../test/support/slack-web-api.js';
import { cpuShares, type CpuShares } from './cpu-profile.js';

export interface SlackClicksResult {
  clicks: number;
  inFlight: number;
  ackMs: { p50: number; p95: number; p99: number; max: number };
  non200: number;
  /** From the first click until every approval was written (the work after the acks). */
  allApprovedMs: number;
  approved: number;
  requestsWithExactlyOneApproval: number;
  jobs: number;
  blockKitViolations: number;
  /** serve's CPU during the clicks, by whose code ran (shares of the busy time), and how busy. */
  serveCpu: CpuShares;
}

const SECRET = 'bench-signing-secret';
const CHANNEL = 'CMAINT';
const ROOT = resolve(import.meta.dirname, '..');

/** The sim in a process of its own, as an apiserver would be: its work is not serve's. */
async function startSimProcess(nodes: number, kubeconfigPath: string): Promise<ChildProcess> {
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
      // A fresh cluster each run: the default keeps the last one in .kubemaint/sim-state, whose
      // 200 requests, approved by the run before, would leave nothing to propose.
      '--no-state',
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
  return child;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const round = (ms: number) => Math.round(ms * 10) / 10;

async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function runSlackClicksBench(clicks = 200, inFlight = 20): Promise<SlackClicksResult> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-slack-bench-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  // BENCH_PROFILE_DIR keeps serve's profile for a closer look (chrome://inspect, or speedscope).
  const profiles = process.env['BENCH_PROFILE_DIR'] ?? join(dir, 'profiles');
  const sim = await startSimProcess(clicks, kubeconfigPath);
  const api = await startSlackWebApi();
  writeFileSync(
    join(dir, 'kubemaint.yaml'),
    `cluster: {type: kubeconfig, name: fleet, kubeconfig: {path: ${kubeconfigPath}}}
slack: {channel: ${CHANNEL}, allowedChannels: [${CHANNEL}]}
approval: {approvers: {users: [UALICE]}}
slot: {concurrency: 5}
kubelet: {enabled: false}
# Approved requests wait: the clicks are measured, not drains.
freezes: [{from: 2000-01-01, to: 2999-12-31, reason: bench}]
schedules: {tick: "0 0 1 1 *", skewScan: "0 0 1 1 *"}
`,
  );
  const serve = startCli(['serve', '--ops-port', '0', '--ops-host', '127.0.0.1'], {
    cwd: dir,
    env: {
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: api.apiUrl,
      PORT: '0',
      NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profiles}`,
    },
  });
  try {
    const ready = await serve.waitFor(/serve ready: .* slack=(http:\/\/\S+)/, 120_000);
    const url = ready[1]!;
    const deps = testControlDeps({ kubeconfigPath, clock: { now: () => new Date() } });
    for (const node of await deps.cluster.listNodes())
      await deps.cluster.patchNode(node.name, { labels: { [LABEL_REBOOT_REQUIRED]: 'true' } });
    const requests = await waitUntil(
      `${clicks} proposals`,
      async () => {
        const proposed = (await listRequests(deps)).filter((r) => r.state === 'proposed');
        return proposed.length >= clicks ? proposed.slice(0, clicks) : undefined;
      },
      300_000,
    );
    await new Promise((r) => setTimeout(r, 2_000)); // the proposals' own ticks settle
    const bodies = requests.map((r, i) =>
      approveClickBody({
        requestId: r.id,
        userId: 'UALICE',
        channelId: CHANNEL,
        responseUrl: api.responseUrl(),
        ts: `1700000000.${String(i).padStart(6, '0')}`,
      }),
    );
    const latencies: number[] = [];
    let non200 = 0;
    let next = 0;
    const window = { from: process.hrtime.bigint(), to: 0n };
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
    const approvedAll = await waitUntil(
      'every approval',
      async () => {
        const all = await listRequests(deps);
        const ids = new Set(requests.map((r) => r.id));
        const mine = all.filter((r) => ids.has(r.id));
        return mine.every((r) => r.state !== 'proposed') ? mine : undefined;
      },
      300_000,
    );
    window.to = process.hrtime.bigint();
    const allApprovedMs = performance.now() - started;
    const decisions = await requestReader(kubeconfigPath).decisions();
    const approvalsOf = (r: MaintenanceRequest) =>
      decisions.filter((d) => d.request === r.id && d.decision === 'approve').length;
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const jobs = (await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: 'kubemaint' }))
      .items;
    const sorted = [...latencies].sort((a, b) => a - b);
    await serve.stop();
    return {
      clicks: bodies.length,
      inFlight,
      ackMs: {
        p50: round(pct(sorted, 50)),
        p95: round(pct(sorted, 95)),
        p99: round(pct(sorted, 99)),
        max: round(sorted.at(-1) ?? 0),
      },
      non200,
      allApprovedMs: Math.round(allApprovedMs),
      approved: approvedAll.filter((r) => r.state === 'approved').length,
      requestsWithExactlyOneApproval: requests.filter((r) => approvalsOf(r) === 1).length,
      jobs: jobs.length,
      blockKitViolations: api.calls.filter((c) => c.violations.length > 0).length,
      serveCpu: cpuShares(profileIn(profiles), window, ROOT),
    };
  } finally {
    await serve.stop();
    await api.close();
    sim.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

function profileIn(dir: string): unknown {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`serve wrote no CPU profile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
}

export function markdownTable(r: SlackClicksResult): string {
  const share = (n: number) => `${Math.round(n * 100)} %`;
  const c = r.serveCpu;
  return [
    '| clicks | in flight | ack p50 | ack p95 | ack p99 | ack max | non-200 | all approved after | approved | exactly one approval | Jobs | Block Kit violations |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${r.clicks} | ${r.inFlight} | ${r.ackMs.p50} ms | ${r.ackMs.p95} ms | ${r.ackMs.p99} ms | ${r.ackMs.max} ms | ${r.non200} | ${r.allApprovedMs} ms | ${r.approved} | ${r.requestsWithExactlyOneApproval} | ${r.jobs} | ${r.blockKitViolations} |`,
    '',
    `serve during the clicks: busy ${share(c.busy)} of ${Math.round(c.windowMs)} ms; of the busy time:`,
    '',
    '| kubemaint | Bolt + HTTP | Kubernetes client | other packages | Node | GC | V8/native |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${share(c.of.kubemaint)} | ${share(c.of.bolt)} | ${share(c.of.kubeClient)} | ${share(c.of.otherPackages)} | ${share(c.of.node)} | ${share(c.of.gc)} | ${share(c.of.native)} |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [clicks, inFlight] = process.argv.slice(2).map(Number);
  const result = await runSlackClicksBench(clicks || undefined, inFlight || undefined);
  process.stdout.write(`${markdownTable(result)}\n\n${JSON.stringify(result, null, 2)}\n`);
}
