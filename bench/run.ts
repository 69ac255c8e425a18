/**
 * `npm run bench`: every benchmark, one after another, and BENCHMARKS.md written from that one run
 * (its figures, the date, the machine's load while each ran, and whether each goal was met). Timing
 * goals live here and in BENCHMARKS.md, never in tests. Names run only some and print their
 * sections without touching BENCHMARKS.md: `npm run bench -- slack-clicks fleet-roll`.
 * The real-apiserver comparison needs Go and the cached Kubernetes build (`npm run real-cluster`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { rollTable, runFleetRollBench, type RollFigures } from './control-fleet-roll.js';
import { runControlTickBench, tickTable, type TickFigures } from './control-tick.js';
import { runDrainBench, type DrainBenchResult } from './drain-vs-kubectl.js';
import {
  eksTickTable,
  packageTrees,
  runEksFirstTickBench,
  type EksTickFigures,
} from './eks-first-tick.js';
import {
  markdownTable as coldTable,
  runFunctionsColdBench,
  type ColdRow,
} from './functions-cold.js';
import { realVsSimTable, runRealVsSimBench, type RealVsSim } from './real-vs-sim.js';
import {
  accuracyTable,
  runRehearseAccuracyBench,
  type AccuracyFigures,
} from './rehearse-accuracy.js';
import { imagesTable, imagesWithinBudget, runImagesBench, type ImagesFigures } from './images.js';
import { runHandoffBench } from './serve-handoff.js';
import { runScaleBench, scaleTable, type ScaleRow } from './scale.js';
import { drainRealTable, runDrainRealBench, type DrainRealFigures } from './drain-real.js';
import type { SimScaleResult } from './sim-scale.js';
import { campaignTable, runSlackCampaignBench, type CampaignCalls } from './slack-campaign.js';
import {
  markdownTable as clicksTable,
  runSlackClicksBench,
  type SlackClicksResult,
} from './slack-clicks.js';

interface Goal {
  goal: string;
  figure: string;
  met: boolean;
}

interface Bench {
  title: string;
  /** What it measures and how; the tables come from the run. */
  about: string;
  run(): Promise<unknown>;
  section(result: never): string;
  goals?(result: never, load: Load): Goal[];
}

interface Load {
  min: number;
  median: number;
  max: number;
}

const COLD_RUNS = 15;
const EKS_TICK_RUNS = 7;
const CORES = cpus().length;

const BENCHES: Record<string, Bench> = {
  'slack-clicks': {
    title:
      'Slack: 200 approval clicks on `serve`, 20 in flight (issues 6, 20) — `bench/slack-clicks.ts`',
    about:
      "200 proposed reboots on a 200-node fleet sim in its own process (as an apiserver stands apart), the real `kubemaint serve` process with its Slack HTTP receiver, tick loop and watches, and signed `block_actions` clicks on each request's Approve button, 20 at once. A freeze keeps the approved requests from starting. serve runs with `--cpu-prof`; the shares below are its CPU during the clicks, by whose code ran (a frame without a script, like JSON.parse, is charged to its caller).",
    run: () => runSlackClicksBench(200, 20),
    section: (r: SlackClicksResult) => clicksTable(r),
    goals: (r: SlackClicksResult) => [
      {
        goal: 'Slack ack p99, 20 in flight, on serve ≤ 300 ms',
        figure: `${r.ackMs.p99} ms (p50 ${r.ackMs.p50}, p95 ${r.ackMs.p95}); ${Math.round(r.serveCpu.of.kubemaint * 100)} % of serve's busy CPU in kubemaint's own code`,
        met: r.ackMs.p99 <= 300 && r.non200 === 0,
      },
    ],
  },
  'slack-campaign': {
    title:
      'Slack: one campaign of 1,000 reboots, in Web API calls (issue 34) — `bench/slack-campaign.ts`',
    about:
      "1,000 marked nodes of a fleet sim (sim scale 200, one pod per node) proposed by one tick as one campaign, the real Slack notifier and the real Bolt app against the Web API stand-in, one signed \"Approve all\" click on the campaign's prompt, then ticks rolling 100 at a time with the executor in process until every node is done. Every Slack call from the first proposal on is counted. Slack allows about one message a second per channel and chat.update about 50 a minute, so the figure is calls per node: the campaign's prompt is its digest, edited in place at most every 3 s (ADR 0056), and a node's routine steps are no replies of their own.",
    run: () => runSlackCampaignBench(1_000, 100),
    section: (r: CampaignCalls) => campaignTable(r),
    goals: (r: CampaignCalls) => [
      {
        goal: 'A 1,000-node campaign uses ≤ 1.2 Slack Web API calls per node',
        figure: `${r.perNode} (${r.webApiCalls} calls: ${r.prompts} prompt, ${r.byMethod['chat.update'] ?? 0} edits, ${r.threadReplies} replies)`,
        met: r.perNode <= 1.2 && r.states['done'] === r.nodes,
      },
    ],
  },
  'functions-cold': {
    title: 'Lambda cold start, from the packaged zips (issues 7, 20) — `bench/functions-cold.ts`',
    about:
      '`npm run package` first (this run builds and unzips the functions as Lambda downloads them). Each row is a fresh Node process, interleaved with the others so load hits each alike, median of the runs. The Slack entry acknowledges before anything heavy loads (ADR 0018): its cold ack imports the entry, reads the signing secret from SSM, queues the asynchronous invocation (both at a local AWS stand-in) and answers 200. Because wall time wanders on a shared machine, each is also a ratio to bare Node and a count of what was loaded, which does not wander.',
    run: async () => {
      const packaged = spawnSync(process.execPath, ['scripts/package.mjs'], { encoding: 'utf8' });
      if (packaged.status !== 0)
        throw new Error(`npm run package failed: ${packaged.stdout}${packaged.stderr}`);
      return runFunctionsColdBench(COLD_RUNS);
    },
    section: (rows: ColdRow[]) => coldTable(rows, COLD_RUNS),
    goals: (rows: ColdRow[]) => {
      const slack = rows.find((r) => r.name === 'slack: import');
      const ack = rows.find((r) => r.name.startsWith('slack: cold ack'));
      return [
        {
          goal: 'Lambda slack entry, cold import over bare Node ≤ 300 ms',
          figure: `+${slack?.overBareMs} ms (×${slack?.ratio} bare Node; ${slack?.loaded.files} files, ${Math.round((slack?.loaded.bytes ?? 0) / 1024)} KiB); cold ack +${ack?.overBareMs} ms`,
          met: (slack?.overBareMs ?? Infinity) <= 300,
        },
      ];
    },
  },
  'eks-first-tick': {
    title:
      "An `eks` cluster's first tick on a cold tick Lambda (issue 36) — `bench/eks-first-tick.ts`",
    about:
      "`npm run package` first (this run does it, and in KUBEMAINT_BENCH_BASELINE's tree too when that names another worktree, whose code is then measured beside this one's). Each run a fresh Node process, interleaved with bare Node and the other tree so load hits each alike, median of the runs: the tick bundle imported, its config read from SSM, the EKS token presigned with the credentials in the environment (as on Lambda; HOME and the AWS config files empty, instance metadata disabled, any connection beyond loopback fails the run) and a tick proposing two reboots run to its end. The cluster's endpoint is an HTTPS stand-in that replays each token's presigned GetCallerIdentity at an STS stand-in checking SigV4 as STS does, then passes the request to a fresh demo sim.",
    run: async () => {
      const baseline = process.env.KUBEMAINT_BENCH_BASELINE;
      const trees = baseline ? [baseline, '.'] : ['.'];
      packageTrees(trees);
      return runEksFirstTickBench(EKS_TICK_RUNS, trees);
    },
    section: (f: EksTickFigures) => eksTickTable(f),
  },
  'fleet-roll': {
    title: 'Fleet roll on `serve` against the ideal (issues 5, 20) — `bench/control-fleet-roll.ts`',
    about:
      "A fleet sim in the bench's process, the real `kubemaint serve` (the CLI bundle, as the image runs it) driven by its watches alone, and every executor Job running that same bundle as a process. 50 marked, auto-approved nodes with 5 slots, held by the pause switch until every one is approved (proposing and approving come before the roll, once, as for the ideal's one node); one node rolled alone first on the same sim, three times one after another, gives the ideal (nodes ÷ slots × the median of those). One pod per node (the DaemonSet's): cross-node PDB waits belong to the workload, and would make the ideal unreachable by construction. Wall time at sim scale 5: a process start, which the scale does not shrink, weighs five times what it would on real hosts.",
    run: () => runFleetRollBench(50, 5, 5),
    section: (r: RollFigures) => rollTable(r),
    goals: (r: RollFigures, load: Load) => {
      // A quiet figure from a busy machine would be neither goal: say so rather than pass it.
      const quiet = load.median <= CORES;
      return [
        {
          goal: 'Fleet roll on a quiet machine, ideal ÷ roll ≥ 0.95',
          figure: `${r.ofIdeal} (hand-offs p50 ${r.handOffMs.p50} ms, p95 ${r.handOffMs.p95} ms; load ${load.median} on ${CORES} cores${quiet ? '' : ': not quiet, rerun'})`,
          met: quiet && r.ofIdeal >= 0.95,
        },
      ];
    },
  },
  'fleet-roll-loaded': {
    title:
      'Fleet roll on `serve`, machine loaded on purpose (issue 20) — `bench/control-fleet-roll.ts`',
    about:
      'The same roll with one busy-looping process per core started by the bench for its whole length, so the loaded figure does not depend on what else happens to share the machine.',
    run: () => withBusyCores(CORES, () => runFleetRollBench(50, 5, 5)),
    section: (r: RollFigures) => rollTable(r),
    goals: (r: RollFigures, load: Load) => [
      {
        goal: 'Fleet roll under load, ideal ÷ roll ≥ 0.9',
        figure: `${r.ofIdeal} (hand-offs p50 ${r.handOffMs.p50} ms, p95 ${r.handOffMs.p95} ms; load ${load.median} on ${CORES} cores)`,
        met: r.ofIdeal >= 0.9,
      },
    ],
  },
  'control-tick': {
    title: 'Control plane on 5,000 nodes (issues 5, 20) — `bench/control-tick.ts`',
    about:
      "The real tick against a 5,000-node sim (controllers off, so the figures are the tick's own), the API server instrumented: every request counted, bodies and TLS bytes summed. Idle: no marks, no requests. Skew scan: the requests once, the full node list in pages of 1,000 and `GET /version`, every kubelet current.",
    run: () => runControlTickBench(5_000),
    section: (rows: TickFigures[]) => tickTable(5_000, rows),
    goals: (rows: TickFigures[]) => {
      const idle = rows.find((r) => r.what === 'idle tick')!;
      const skew = rows.find((r) => r.what === 'skew scan')!;
      return [
        {
          goal: 'Idle tick ≤ 3 requests, ≤ 100 KB',
          figure: `${idle.requests} requests, ${(idle.wireBytes / 1024).toFixed(1)} KB on the wire`,
          met: idle.requests <= 3 && idle.wireBytes <= 100 * 1024,
        },
        {
          goal: 'Skew scan, 5,000 nodes: ≤ 11 requests, ≤ 150 MB',
          figure: `${skew.requests} requests, peak RSS +${skew.peakRssDeltaMiB} MiB, ${(skew.bodyBytes / 1024 / 1024).toFixed(1)} MB read; wall p50 ${skew.wallMs.median} ms`,
          met: skew.requests <= 11 && skew.peakRssDeltaMiB <= 150,
        },
      ];
    },
  },
  'real-vs-sim': {
    title: 'kube-apiserver and the sim side by side (issue 20) — `bench/real-vs-sim.ts`',
    about:
      "The real control plane of `npm run real-cluster` (its own folder, fresh, stopped afterwards) and the embedded sim's API server, 5,000 Node objects posted to each the same way (as a kubelet registers, every kubelet current), then the same ticks on each, counted at the client (every request through client-node's undici Agent; bytes as they came over the wire).",
    run: () => runRealVsSimBench(5_000),
    section: (r: RealVsSim) => realVsSimTable(r),
    goals: (r: RealVsSim) => [
      {
        goal: 'Request counts on kube-apiserver match the sim (idle tick, skew scan)',
        figure: `idle ${r.idle.real.requests} = ${r.idle.sim?.requests}, skew scan ${r.skewScan.real.requests} = ${r.skewScan.sim?.requests}`,
        met: r.idle.sameRequests === true && r.skewScan.sameRequests === true,
      },
    ],
  },
  scale: {
    title: 'Large fleets on kube-apiserver (issue 34) — `bench/scale.ts`',
    about:
      "The roll of the section above on kube-apiserver alone, among 500, 1,000 and 5,000 Node objects (a fresh control plane for each size). What serve asked kube-apiserver comes from its audit log and does not depend on the machine's load; the times do.",
    run: () => runScaleBench(),
    section: (rows: ScaleRow[]) => scaleTable(rows),
    goals: (rows: ScaleRow[]) => {
      const first = rows[0]?.result.roll?.real;
      const last = rows.at(-1)?.result.roll?.real;
      const handOffs = rows.map((r) => r.result.roll?.real.handOffMs.p95 ?? Infinity);
      return [
        {
          goal: 'ideal ÷ roll ≥ 0.9 at 5,000 nodes on kube-apiserver',
          figure: String(last?.ofIdeal),
          met: (last?.ofIdeal ?? 0) >= 0.9,
        },
        {
          goal: 'hand-off p95 ≤ 500 ms at every size',
          figure: handOffs.map((ms) => `${ms} ms`).join(', '),
          met: handOffs.every((ms) => ms <= 500),
        },
        {
          goal: "serve's CPU per node rolled at 5,000 nodes within 1.5× of 500",
          figure: `${last?.serveCpuPerNodeS} s vs ${first?.serveCpuPerNodeS} s`,
          met: (last?.serveCpuPerNodeS ?? Infinity) <= 1.5 * (first?.serveCpuPerNodeS ?? 0),
        },
        {
          goal: 'serve RSS ≤ 300 MiB at 5,000 nodes',
          figure: `${last?.servePeakRssMiB} MiB`,
          met: (last?.servePeakRssMiB ?? Infinity) <= 300,
        },
      ];
    },
  },
  'drain-real': {
    title: 'Draining 300 pods on kube-apiserver (issue 34) — `bench/drain-real.ts`',
    about:
      "`kubemaint drain` of a node holding 300 pods (30 Deployments of 10, a PodDisruptionBudget each) on the real control plane of `npm run real-cluster` (its own folder, fresh), the pods run by simulated kubelets attached to it, the real scheduler placing the replacements on three spare nodes. Two cases, each on a node of its own: PDBs that allow one disruption per workload (each eviction waits for a replacement to be Ready) and PDBs that allow half of each workload at once (what the client, not the PDB, can do). Evictions per second from the first accepted to the last; refusals and any other 429 (API Priority and Fairness) from kube-apiserver's own counters; every workload's healthy pods watched the whole time, fewer than the PDB's desired number being a violation.",
    run: () => runDrainRealBench(),
    section: (f: DrainRealFigures) => drainRealTable(f),
    goals: (f: DrainRealFigures) => {
      // The second case, PDBs allowing half of each workload: where the client, not a PDB, sets the pace.
      const half = f.cases.at(-1);
      const violations = f.cases.reduce((n, c) => n + c.violations.length, 0);
      return [
        {
          goal: '300-pod drain on kube-apiserver at ≥ 20 evictions per second where PDBs allow',
          figure: `${half?.firstWave.perS} evictions/s over the ${half?.firstWave.evictions} its PDBs allowed at once (${half?.pdb}; ${half?.evictionsPerS}/s over the whole drain, replacements waited for), other 429s ${half?.throttled}`,
          met: (half?.firstWave.perS ?? 0) >= 20,
        },
        {
          goal: 'no PDB ever violated during the drains',
          figure: `${violations} violations, smallest margin ${Math.min(...f.cases.map((c) => c.minMargin))}`,
          met: violations === 0,
        },
      ];
    },
  },
  'rehearse-accuracy': {
    title: 'Rehearsal against the campaign run for real (issue 21) — `bench/rehearse-accuracy.ts`',
    about:
      "A 30-node fleet sim with a pod behind a PDB that never allows an eviction, three slots, a 60-minute window, observed durations from three nodes rolled before. `kubemaint rehearse --json` runs as the CLI against it (the cluster's clock held still), then the same campaign runs for real on it: the tick every minute plus serve's watches on the cluster's clock, the real executor for every Job, and one machine's reboot taking twice as long (a fault the rehearsal cannot know of). Totals are first start to last end on both sides; per node, the start and end, inside the window or not, the stuck node and its PDB.",
    run: () => runRehearseAccuracyBench(),
    section: (cases: AccuracyFigures[]) => accuracyTable(cases),
    goals: (cases: AccuracyFigures[]) =>
      cases.map((f) => ({
        goal: `Rehearsal, ${f.case}: predicted total within ±20 % of the real run, the stuck node and its PDB named`,
        figure: `${f.predicted.totalMinutes} min predicted, ${f.real.totalMinutes} min real (${f.totalErrorPct > 0 ? '+' : ''}${f.totalErrorPct} %); inside the window ${f.predicted.finishedInWindow} predicted, ${f.real.finishedInWindow} real; stuck ${f.real.stuck.join(', ') || 'none'}${f.stuckNamed ? ', named' : ', not named'}`,
        met: Math.abs(f.totalErrorPct) <= 20 && f.stuckNamed,
      })),
  },
  'serve-handoff': {
    title: 'Slot hand-off in `serve` (issue 5) — `bench/serve-handoff.ts`',
    about:
      "The real `kubemaint serve` process on a 6-node fleet sim, one slot, six approved reboots, the tick schedule never firing: every hand-off is driven by serve's watches. Hand-off = from one request's `done` (its slot released) to the next one's `running` (its Job created).",
    run: () => runHandoffBench(6),
    section: (r: { handoffs: number; handoffMs: { p50: number; p95: number; max: number } }) =>
      [
        '| Hand-offs | p50 | p95 | max |',
        '| ---: | ---: | ---: | ---: |',
        `| ${r.handoffs} | ${r.handoffMs.p50} ms | ${r.handoffMs.p95} ms | ${r.handoffMs.max} ms |`,
      ].join('\n'),
  },
  'sim-scale': {
    title: 'Embedded sim at scale (issue 3) — `bench/sim-scale.ts`',
    about:
      '5,000 nodes and 100,000 pods, controllers off, listed through `@kubernetes/client-node` over HTTPS, in a Node.js process of its own (RSS is the sim, its TLS server and the client reading it; baseline: that process before the sim starts).',
    // In a process of its own: RSS in this one counts every bench run before it (it said 1.37 GiB).
    run: () => simScaleInOwnProcess(5_000, 20),
    section: (r: SimScaleResult) =>
      [
        '| Seed (including TLS setup) | List 5,000 nodes | List 100,000 pods in pages | Memory after GC |',
        '| ---: | ---: | ---: | ---: |',
        `| ${(r.seedMs / 1000).toFixed(1)} s | median ${r.listNodesMs.median} ms in ${r.listNodesPages} pages | ${(r.listPodsPagedMs / 1000).toFixed(1)} s | RSS ${r.memory.rssMiB} MiB (baseline ${r.memory.baselineRssMiB} MiB), heap ${r.memory.heapUsedMiB} MiB |`,
      ].join('\n'),
  },
  'drain-vs-kubectl': {
    title: 'Drain: `kubemaint drain` vs `kubectl drain` (issue 4) — `bench/drain-vs-kubectl.ts`',
    about:
      'Twin nodes with 110 pods each in the same sim (scale 20), the installed kubectl; both run as processes (kubemaint as its esbuild bundle, as the image runs it), once with kubectl first and once with kubemaint first, so neither always meets a warmer sim.',
    run: async () => [await runDrainBench(20, false), await runDrainBench(20, true)],
    section: (runs: DrainBenchResult[]) =>
      [
        '| run | `kubemaint drain` | `kubectl drain --ignore-daemonsets --delete-emptydir-data` | ratio |',
        '| --- | ---: | ---: | ---: |',
        ...runs.map(
          (r, i) =>
            `| ${i === 0 ? 'kubectl first' : 'kubemaint first'} | ${(r.kubemaint.ms / 1000).toFixed(1)} s | ${(r.kubectl.ms / 1000).toFixed(1)} s (${r.kubectl.version}) | ${r.ratio} |`,
        ),
      ].join('\n'),
  },
  images: {
    title: 'The images, built without Docker (issue 31) — `bench/images.ts`',
    about:
      "`npm run images` (both images, linux/amd64 and linux/arm64) on a fresh machine (an empty cache, so Debian 12's packages and Node.js are fetched: network included), on a kept one (the cache full, a new output folder) and once more into the same folder (inputs unchanged). CPU is the build's child processes (mmdebstrap, node under qemu-user for arm64's compile cache, tar, gzip in node), which wanders less than wall time on a shared machine. Sizes are what a node downloads (config and gzipped layers) and unpacks, per platform.",
    run: () => Promise.resolve(runImagesBench()),
    section: (f: ImagesFigures) => imagesTable(f),
    goals: (f: ImagesFigures) => [
      {
        goal: 'Images within budget per platform: CLI ≤ 120 MiB, agent ≤ 15 MiB compressed',
        figure:
          f.images
            .map(
              (i) =>
                `${i.name} ${i.platforms.map((p) => `${(p.compressedBytes / 1048576).toFixed(1)}`).join('/')} MiB`,
            )
            .join(', ') + ' (amd64/arm64)',
        met: imagesWithinBudget(f),
      },
    ],
  },
};

/** Runs `work` while `count` child processes spin, one core each: a load that is the bench's own. */
async function withBusyCores<T>(count: number, work: () => Promise<T>): Promise<T> {
  const spinners = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  try {
    return await work();
  } finally {
    for (const spinner of spinners) spinner.kill('SIGKILL');
  }
}

/** The 1-minute load average, sampled every 5 s while a benchmark runs. */
function sampleLoad(): { stop(): Load } {
  const samples = [loadavg()[0]!];
  const timer = setInterval(() => samples.push(loadavg()[0]!), 5_000);
  return {
    stop() {
      clearInterval(timer);
      samples.push(loadavg()[0]!);
      const sorted = [...samples].sort((a, b) => a - b);
      const r = (n: number) => Math.round(n * 10) / 10;
      return {
        min: r(sorted[0]!),
        median: r(sorted[Math.floor(sorted.length / 2)]!),
        max: r(sorted.at(-1)!),
      };
    },
  };
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(
    `unknown benchmark: ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}\n`,
  );
  process.exit(2);
}
const names = wanted.length > 0 ? wanted : Object.keys(BENCHES);
const startedAt = new Date();
const whole = sampleLoad();
const sections: string[] = [];
const goals: Goal[] = [];
for (const name of names) {
  const bench = BENCHES[name]!;
  process.stderr.write(`running ${name}...\n`);
  const load = sampleLoad();
  const result = (await bench.run()) as never;
  const during = load.stop();
  process.stdout.write(`${JSON.stringify({ bench: name, load: during, result }, null, 2)}\n`);
  const met = bench.goals?.(result, during) ?? [];
  goals.push(...met);
  sections.push(
    [
      `## ${bench.title}`,
      '',
      bench.about,
      '',
      `Machine load during it (1-minute average, ${CORES} cores): median ${during.median}, ${during.min}–${during.max}.`,
      '',
      bench.section(result),
    ].join('\n'),
  );
}
const load = whole.stop();
const goalTable = [
  '| goal | this run | met |',
  '| --- | --- | --- |',
  ...goals.map((g) => `| ${g.goal} | ${g.figure} | ${g.met ? 'yes' : '**no**'} |`),
].join('\n');
const minutes = Math.round((Date.now() - startedAt.getTime()) / 60_000);
const document = [
  '# Benchmarks',
  '',
  `Written by \`npm run bench\` on ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC (${minutes} min), Node ${process.version}, ${CORES} cores shared with other work: the 1-minute load average was median ${load.median} (${load.min}–${load.max}) over the run. Every figure below is from this one run. Where a machine's noise would make an absolute time meaningless, read the ratios and the counts; each section gives the load while it ran.`,
  '',
  goalTable,
  '',
  ...sections.flatMap((s) => [s, '']),
  '## Reporter agent memory per node (issue 7) — `test/integration/agent/agent-memory.test.ts`',
  '',
  'Not part of `npm run bench` (a test measures it, `/proc` peaks while each curl runs): about 2 MiB of anonymous memory per node for the shell and curl (dash 164 + 1,784 kB, busybox sh 188 + 1,784 kB), against the 10 MB target; RSS, which counts the shared libcurl and OpenSSL pages, is 13.8–14.3 MiB. Between checks only the shell sleeps: 164–188 kB.',
  '',
].join('\n');
if (wanted.length === 0) {
  writeFileSync(resolve('BENCHMARKS.md'), document);
  process.stderr.write(`BENCHMARKS.md written (load median ${load.median})\n`);
} else {
  process.stdout.write(`\n${goalTable}\n\n${sections.join('\n\n')}\n`);
}

/** bench/sim-scale.ts as its own `node --expose-gc` process: its memory figures are the sim's alone. */
function simScaleInOwnProcess(nodes: number, podsPerNode: number): Promise<SimScaleResult> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'bench/sim-scale.ts', String(nodes), String(podsPerNode)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', fail);
    child.on('close', (code) => {
      if (code !== 0) return fail(new Error(`bench/sim-scale.ts exited ${code}`));
      try {
        done(JSON.parse(out) as SimScaleResult);
      } catch (error) {
        fail(new Error(`bench/sim-scale.ts printed no JSON result: ${String(error)}`));
      }
    });
  });
}
