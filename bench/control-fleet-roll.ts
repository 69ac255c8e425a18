/**
 * Benchmark: a fleet roll on `kubemaint serve` against the ideal (issue 5; issue 20: serve, not a
 * hand-cranked tick). A fleet sim runs in this process; serve runs as the CLI bundle, as the image
 * runs it, and every executor Job runs that same bundle as a process (the sim maps the executor
 * image to it). Nodes are marked and auto-approved under the pause switch, then resumed and rolled
 * `concurrency` at a time, driven by serve's watches alone (its tick schedule is left at the
 * default, a minute, longer than the gaps measured here). One node is first rolled alone on the
 * same sim, three times one after another (the median taken): the ideal is nodes ÷ concurrency ×
 * that one node, so the ratio ideal ÷ roll says what running them side by side costs, and where
 * the gap goes is taken apart per node:
 *
 * - hand-off: a slot freed (the previous request done) → the next request running (its Job created)
 * - executor start: Job created → the executor at work in its slot (its first Event, cordoning or
 *   draining): the pod's scheduling and start, the process's start, the slot taken
 * - executor: started → the host command issued (cordon, drain)
 * - host: the host command → the node back with a new boot id (the sim's reboot: a fixed delay)
 * - verification: the node back → the request done (serve saw it, proved it, released the slot)
 * - soak: `slot.releaseDelay` (none here; reported so a configured one is never mistaken for a gap)
 *
 * Wall time throughout (serve, the executors and this process read the same clock), at sim `scale`.
 * The fleet has one pod per node (its DaemonSet's, which a drain leaves): cross-node PDB waits are
 * the workload's, not the orchestrator's, and would make the ideal unreachable by construction.
 * Run: `npx tsx bench/control-fleet-roll.ts [nodes] [concurrency] [scale]`. Prints a markdown table.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listRequests } from '../src/app/control/commands.js';
import { ANN_REBOOT_REQUIRED_SINCE, LABEL_REBOOT_REQUIRED } from '../src/core/names.js';
import type { MaintenanceRequest } from '../src/core/request.js';
import { R } from '@kubemaint/kubesim';
import { testControlDeps } from '../test/support/control.js';
import { cli, ROOT } from '../test/support/executor-fleet.js';
import { startTestSim, type TestSim } from '../test/support/sim.js';

export interface Phases {
  handOffMs: number;
  executorStartMs: number;
  executorMs: number;
  hostMs: number;
  verificationMs: number;
  soakMs: number;
}

export interface RollFigures {
  nodes: number;
  concurrency: number;
  scale: number;
  oneNodeS: number;
  idealS: number;
  rollS: number;
  /** ideal ÷ roll, to three places (cut, not rounded): 1 is perfect. */
  ofIdeal: number;
  /** Medians per node: alone, and in the roll (hand-off: every hand-off of the roll). */
  alone: Phases;
  roll: Phases;
  handOffMs: { p50: number; p95: number; max: number; count: number };
  /** Where the roll's time above the ideal went, as seconds of the roll (per-phase excess ÷ concurrency). */
  gapS: Phases & { total: number };
}

interface NodeTimes {
  node: string;
  running: number;
  started: number;
  hostCommand: number;
  back: number;
  proven: number;
  done: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

/** How many times one node is rolled alone for the ideal (its median). */
const ALONE_RUNS = 3;

export async function runFleetRollBench(
  nodes = 50,
  concurrency = 5,
  scale = 5,
): Promise<RollFigures> {
  const argv = await cli();
  // As the image does (infra/image/Dockerfile): V8's code cache for the bundle, made once, used
  // by serve and every executor process (they inherit this process's environment).
  process.env['NODE_COMPILE_CACHE'] ??= mkdtempSync(join(tmpdir(), 'kubemaint-compile-cache-'));
  spawnSync(argv[0]!, [...argv.slice(1), '--version'], { stdio: 'ignore' });
  const sim = await startTestSim({
    scenario: 'fleet',
    nodes: nodes + ALONE_RUNS,
    podsPerNode: 1,
    scale,
    images: { 'ghcr.io/kubemaint/kubemaint:*': { command: argv, cwd: ROOT } },
    // The machine goes down 10 sim s after `reboot` (the executor exits first, as `systemctl
    // reboot` lets it) and is back a minute later, as the sim's default host.
    delays: { rebootIssueDelayMs: 10_000, rebootDowntimeMs: 60_000 },
  });
  const names = sim.store
    .list(R.nodes)
    .map((n) => n.metadata.name ?? '')
    .sort();
  for (const name of names) mark(sim, name, false); // the scenario marks every seventh node
  const config = join(sim.dir, 'kubemaint.yaml');
  writeFileSync(
    config,
    `cluster: {type: sim}
kubelet: {enabled: false}
slot: {concurrency: ${concurrency}}
blockers: {maxUnhealthyNodes: ${concurrency}}
approval:
  approvers: {users: [UALICE]}
  autoApprove: {nodeSelector: kubernetes.io/os=linux}
`,
  );
  const serve = spawn(
    argv[0]!,
    [...argv.slice(1), 'serve', '--config', config, '--kubeconfig', sim.kubeconfigPath],
    {
      cwd: sim.dir,
      env: { ...process.env, KUBEMAINT_LOG_LEVEL: 'warn', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  serve.stdout.on('data', (c: Buffer) => (out += c.toString()));
  serve.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const backAt = watchNodesComeBack(sim);
  try {
    await until('serve ready', () => out.includes('serve ready'), 120_000);
    const deps = testControlDeps({ kubeconfigPath: sim.kubeconfigPath, clock: sim.clock });
    // One node alone, a few times over (one at a time): a single sample would make the whole
    // ratio hostage to one slow or fast start.
    const aloneTimes: NodeTimes[] = [];
    for (const node of names.slice(0, ALONE_RUNS))
      aloneTimes.push(...(await roll(sim, deps, [node], backAt, concurrency)).times);
    const cpuBefore = cpuSeconds(serve.pid);
    const all = await roll(
      sim,
      deps,
      names.slice(ALONE_RUNS, ALONE_RUNS + nodes),
      backAt,
      concurrency,
    );
    if (process.env['BENCH_DEBUG']) {
      const after = cpuSeconds(serve.pid);
      process.stderr.write(
        `CPU s in the roll: bench+sim ${(after.self - cpuBefore.self).toFixed(1)}, serve ${(after.serve - cpuBefore.serve).toFixed(1)}, executors ${(after.children - cpuBefore.children).toFixed(1)}\n`,
      );
    }
    const phases = (times: NodeTimes[], handOffs: number[]): Phases => ({
      handOffMs: median(handOffs),
      executorStartMs: median(times.map((t) => t.started - t.running)),
      executorMs: median(times.map((t) => t.hostCommand - t.started)),
      hostMs: median(times.map((t) => t.back - t.hostCommand)),
      verificationMs: median(times.map((t) => t.proven - t.back)),
      soakMs: median(times.map((t) => t.done - t.proven)),
    });
    const oneNodeMs = median(aloneTimes.map((t) => t.done - t.running));
    const idealMs = Math.ceil(nodes / concurrency) * oneNodeMs;
    const rollMs = all.endedAt - all.startedAt;
    const a = phases(aloneTimes, []);
    const r = phases(all.times, all.handOffs);
    const excess = (key: keyof Phases) =>
      Math.max(0, ((r[key] - a[key]) * nodes) / concurrency / 1000);
    const s = (ms: number) => Math.round(ms / 100) / 10;
    const gap = {
      handOffMs: s(all.handOffs.reduce((x, y) => x + y, 0) / concurrency),
      executorStartMs: s(excess('executorStartMs') * 1000),
      executorMs: s(excess('executorMs') * 1000),
      hostMs: s(excess('hostMs') * 1000),
      verificationMs: s(excess('verificationMs') * 1000),
      soakMs: s(excess('soakMs') * 1000),
    };
    return {
      nodes,
      concurrency,
      scale,
      oneNodeS: s(oneNodeMs),
      idealS: s(idealMs),
      rollS: s(rollMs),
      // Three places, cut rather than rounded: a goal (≥ 0.95) is never met by rounding up.
      ofIdeal: Math.floor((idealMs / rollMs) * 1000) / 1000,
      alone: a,
      roll: r,
      handOffMs: {
        p50: pct(all.handOffs, 50),
        p95: pct(all.handOffs, 95),
        max: Math.max(0, ...all.handOffs),
        count: all.handOffs.length,
      },
      gapS: { ...gap, total: s(rollMs - idealMs) },
    };
  } finally {
    backAt.stop();
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('exit', resolve));
    await sim.close();
  }
}

/** CPU seconds so far (Linux /proc): this process, serve, and this process's ended children. */
function cpuSeconds(servePid: number | undefined) {
  const fields = (pid: number | 'self') =>
    readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ')
      .map(Number);
  const tick = 100; // USER_HZ
  const me = fields('self');
  const serve = servePid ? fields(servePid) : [];
  // After "pid (comm) ": state is [0], utime [11], stime [12], cutime [13], cstime [14].
  return {
    self: (me[11]! + me[12]!) / tick,
    children: (me[13]! + me[14]!) / tick,
    serve: servePid ? (serve[11]! + serve[12]!) / tick : 0,
  };
}

function mark(sim: TestSim, node: string, on: boolean): void {
  // Wall time, as serve reads it (the sim's own clock runs `scale` times faster): a mark that
  // seemed to come after the reboot would be kept, and the node proposed again.
  const since = new Date(Date.now() - 60_000).toISOString();
  sim.store.mutate(R.nodes, undefined, node, (n) => {
    const labels = { ...n.metadata.labels };
    const annotations = { ...n.metadata.annotations };
    if (on) {
      labels[LABEL_REBOOT_REQUIRED] = 'true';
      annotations[ANN_REBOOT_REQUIRED_SINCE] = since;
    } else delete labels[LABEL_REBOOT_REQUIRED];
    n.metadata.labels = labels;
    n.metadata.annotations = annotations;
  });
}

/**
 * Each node's boot ids and readiness as they changed (wall ms), from the sim's store as it commits
 * them (a watch, not polling: the bench's own CPU would otherwise be part of what it measures); a
 * node is back at the first change after its host command to another boot id and Ready.
 */
function watchNodesComeBack(sim: TestSim) {
  const bootOf = (n: { status?: Record<string, unknown> }) =>
    (n.status?.['nodeInfo'] as { bootID?: string } | undefined)?.bootID ?? '';
  const readyOf = (n: { status?: Record<string, unknown> }) =>
    ((n.status?.['conditions'] ?? []) as { type: string; status: string }[]).some(
      (c) => c.type === 'Ready' && c.status === 'True',
    );
  const seen = new Map<string, { at: number; boot: string; ready: boolean }[]>();
  const note = (n: { metadata: { name?: string }; status?: Record<string, unknown> }) => {
    const name = n.metadata.name ?? '';
    const list = seen.get(name) ?? [];
    const last = list.at(-1);
    const sample = { at: Date.now(), boot: bootOf(n), ready: readyOf(n) };
    if (!last || last.boot !== sample.boot || last.ready !== sample.ready) list.push(sample);
    seen.set(name, list);
  };
  for (const n of sim.store.list(R.nodes)) note(n);
  const stop = sim.store.watch(R.nodes, (event) => {
    if (event.type !== 'DELETED') note(event.object);
  });
  return {
    of: (node: string, after: number, bootBefore: string | undefined) =>
      (seen.get(node) ?? []).find((s) => s.at >= after && s.ready && s.boot !== bootBefore)?.at,
    stop,
  };
}

async function roll(
  sim: TestSim,
  deps: ReturnType<typeof testControlDeps>,
  nodes: readonly string[],
  backAt: ReturnType<typeof watchNodesComeBack>,
  concurrency: number,
): Promise<{ times: NodeTimes[]; handOffs: number[]; startedAt: number; endedAt: number }> {
  // Proposing and approving come before the roll, once, whatever the fleet's size (as for the
  // ideal's one node): the pause switch holds every start until each request is approved, so the
  // first Jobs do not share the machine with the other proposals and approvals.
  const pause = (paused: boolean) =>
    deps.cluster.writePause({ paused, by: 'bench', at: new Date().toISOString() });
  await pause(true);
  for (const node of nodes) mark(sim, node, true);
  const wanted = new Set(nodes);
  await until(
    `${nodes.length} requests approved`,
    async () => {
      const mine = (await listRequests(deps)).filter((r) => wanted.has(r.node));
      return mine.length === nodes.length && mine.every((r) => r.state === 'approved');
    },
    nodes.length * 10_000,
  );
  await pause(false);
  const requests = await until(
    `${nodes.length} requests done`,
    async () => {
      const mine = (await listRequests(deps)).filter((r) => wanted.has(r.node));
      const failed = mine.find((r) => r.state === 'failed');
      if (failed) throw new Error(`${failed.node} failed: ${failed.failure ?? ''}`);
      return mine.length === nodes.length && mine.every((r) => r.state === 'done')
        ? mine
        : undefined;
    },
    nodes.length * 120_000,
    // Each look lists every request over HTTPS in this process, beside the sim: a second apart it
    // costs the roll nothing it measures (the times come from the requests' histories).
    1000,
  );
  const at = (r: MaintenanceRequest, state: string) =>
    Date.parse(r.history.find((h) => h.to === state)?.at ?? '');
  const times = requests.map((r): NodeTimes => {
    const running = at(r, 'running');
    const done = at(r, 'done');
    return {
      node: r.node,
      running,
      started: startedEvent(sim, r.node, running),
      hostCommand: Date.parse(r.hostCommandIssuedAt ?? ''),
      back:
        backAt.of(r.node, Date.parse(r.hostCommandIssuedAt ?? ''), r.bootIdBefore) ?? Number.NaN,
      proven: r.proven ? Date.parse(r.proven.at) : done,
      done,
    };
  });
  // The roll starts with its first Job (as the ideal's one node does): proposing and approving
  // come before, once, whatever the fleet's size.
  const startedAt = Math.min(...times.map((t) => t.running));
  if (process.env['BENCH_DEBUG']) {
    const r0 = requests.find((r) => r.node === nodes[0])!;
    process.stderr.write(`${JSON.stringify(r0.history)}\n`);
    for (const e of sim.store.list(R.events)) {
      const ev = e as {
        reason?: string;
        involvedObject?: { name?: string };
        firstTimestamp?: string;
        message?: string;
      };
      if (ev.involvedObject?.name === r0.node)
        process.stderr.write(`  ${ev.firstTimestamp} ${ev.reason} ${ev.message ?? ''}\n`);
    }
  }
  if (process.env['BENCH_DEBUG'])
    for (const t of [...times].sort((a, b) => a.running - b.running))
      process.stderr.write(
        `${t.node} running+${t.running - startedAt} started+${t.started - t.running} host+${t.hostCommand - t.started} back+${t.back - t.hostCommand} proven+${t.proven - t.back} done+${t.done - t.proven}\n`,
      );
  // Each start after the first `concurrency` waited for a slot: from the earliest done not yet
  // handed on to this start.
  const starts = [...times].sort((a, b) => a.running - b.running);
  const frees = times.map((t) => t.done).sort((a, b) => a - b);
  const handOffs = starts.slice(concurrency).map((t, i) => Math.max(0, t.running - frees[i]!));
  return { times, handOffs, startedAt, endedAt: Math.max(...times.map((t) => t.done)) };
}

/** When the executor began on the node (its first Event: cordoning, or draining), wall ms. */
function startedEvent(sim: TestSim, node: string, after: number): number {
  const times = sim.store
    .list(R.events)
    .map(
      (e) => e as { reason?: string; involvedObject?: { name?: string }; firstTimestamp?: string },
    )
    .filter(
      (e) =>
        (e.reason === 'KubemaintCordoned' || e.reason === 'KubemaintDraining') &&
        e.involvedObject?.name === node,
    )
    .map((e) => Date.parse(e.firstTimestamp ?? ''))
    .filter((t) => t >= after)
    .sort((a, b) => a - b);
  return times[0] ?? Number.NaN;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms: number,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function rollTable(r: RollFigures): string {
  const row = (what: string, p: Phases) =>
    `| ${what} | ${p.handOffMs} | ${p.executorStartMs} | ${p.executorMs} | ${p.hostMs} | ${p.verificationMs} | ${p.soakMs} |`;
  const g = r.gapS;
  return [
    `Fleet roll on serve: ${r.nodes} nodes, ${r.concurrency} slots, sim scale ${r.scale} (wall time)`,
    '',
    '| one node alone | ideal (nodes ÷ slots × one node) | roll | ideal ÷ roll |',
    '| ---: | ---: | ---: | ---: |',
    `| ${r.oneNodeS} s | ${r.idealS} s | ${r.rollS} s | ${r.ofIdeal} |`,
    '',
    'Per node, median ms: hand-off (slot free → next Job), executor start (Job → executor at work), executor (→ host command), host (→ node back), verification (→ done), soak (release delay)',
    '',
    '| | hand-off | executor start | executor | host | verification | soak |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('alone', r.alone),
    row('in the roll', r.roll),
    '',
    `Hand-offs: ${r.handOffMs.count}, p50 ${r.handOffMs.p50} ms, p95 ${r.handOffMs.p95} ms, max ${r.handOffMs.max} ms.`,
    `Where the ${g.total} s above the ideal went (s of the roll): hand-offs ${g.handOffMs}, executor start ${g.executorStartMs}, executor ${g.executorMs}, host ${g.hostMs}, verification ${g.verificationMs}, soak ${g.soakMs}.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [nodes, concurrency, scale] = process.argv.slice(2).map(Number);
  const result = await runFleetRollBench(
    nodes || undefined,
    concurrency || undefined,
    scale || undefined,
  );
  process.stdout.write(`${rollTable(result)}\n\n${JSON.stringify(result, null, 2)}\n`);
}
