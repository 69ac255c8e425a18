/**
 * Benchmark: how close `kubemaint rehearse` comes to the campaign run for real (issue 21). The
 * done-when's case: a 30-node cluster (the `fleet` scenario: three pools, a DaemonSet pod and a pod of
 * a PDB-guarded Deployment on every node), one more pod pinned to one node behind a PDB that never
 * allows an eviction, three slots and a 60-minute window; one node's reboot takes twice as long as
 * the others' (a fault the rehearsal cannot know of).
 *
 * 1. The cluster has a past: three nodes are rolled first (no window) so it holds observed
 *    durations (kubemaint-durations), as a cluster kubemaint maintained before does.
 * 2. Every node is marked; with the cluster's clock held still, `kubemaint rehearse --json` runs as
 *    the CLI against it, reads it and predicts on a twin of its own.
 * 3. The clock runs again and the same campaign runs for real on the same cluster: the tick on a
 *    minute's schedule plus serve's watches (as `serve` drives it), on the cluster's clock, and the
 *    real executor for every Job it creates (in process, compose/in-process-jobs.ts, as the
 *    integration tests run it: a process per Job would put wall seconds into a scaled clock).
 * 4. Per node (start, end, inside the window or not, the stuck node and its PDB) and in total.
 *
 * The total is the same measure on both sides: from the first node's start to the last node's end
 * (a node that never ended does not count; the stuck node is compared by name and PDB instead).
 * The cluster runs at sim `scale` (20: the hour's window in three wall minutes), the rehearsal at
 * its default (300). Run: `npx tsx bench/rehearse-accuracy.ts [scale]`; BENCH_REHEARSAL_HTML and
 * BENCH_REHEARSAL_TEXT name files to keep the rehearsal's timeline and text report in (the docs'
 * picture and excerpt).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { R, type Sim } from '@kubemaint/kubesim';
import { watchForChanges } from '../src/adapters/kube/watch-trigger.js';
import { listRequests } from '../src/app/control/commands.js';
import { createTickLoop } from '../src/app/control/loop.js';
import type { RehearsalReport } from '../src/app/control/rehearsal.js';
import { runTick } from '../src/app/control/tick.js';
import { openControl } from '../src/compose.js';
import { settingsFromConfig } from '../src/compose/executor-settings.js';
import {
  inProcessJobFor,
  runJobsInProcess,
  simExecutorSettings,
} from '../src/compose/in-process-jobs.js';
import { createHeldClock } from '../src/compose/rehearsal/held-clock.js';
import { forSimHost } from '../src/compose/sim-host.js';
import { loadConfig } from '../src/config/load.js';
import { ANN_REBOOT_REQUIRED_SINCE, LABEL_REBOOT_REQUIRED } from '../src/core/names.js';
import type { MaintenanceRequest } from '../src/core/request.js';
import { silentLogger } from '../src/log.js';
import { rehearsalText } from '../templates/rehearsal.js';
import { runCli } from '../test/support/cli-process.js';
import { guardPodOnNode } from '../test/support/guarded-pod.js';
import { startTestSim, type TestSim } from '../test/support/sim.js';

const NODES = 30;
const CONCURRENCY = 3;
const WINDOW_OPENS = '2030-01-07T22:00:00Z';
const WINDOW_CLOSES = '2030-01-07T23:00:00Z';
/** How long a machine is down on a reboot in this cluster (the slow one: about twice as long). */
const DOWNTIME_MS = 6 * 60_000;
const ISSUE_DELAY_MS = 10_000;
const WARM_UP_NODES = 3;
const STUCK_INDEX = 7;
const SLOW_INDEX = 13;

export interface NodeOutcome {
  node: string;
  state: string;
  start?: string;
  end?: string;
  /** Ended before the window closed. */
  fits: boolean;
  /** The PDB that holds it, when it never ended because of one. */
  pdb?: string;
}

export interface Side {
  /** First start to last end, minutes (nodes that ended only). */
  totalMinutes: number;
  finishedInWindow: number;
  /** `node (PDB ns/name)` for every node a PDB kept from ending. */
  stuck: string[];
  nodes: NodeOutcome[];
  wallS: number;
}

export interface AccuracyFigures {
  case: string;
  nodes: number;
  concurrency: number;
  windowMinutes: number;
  scale: number;
  /** What the rehearsal said its durations were. */
  durations: string;
  predicted: Side;
  real: Side;
  /** (predicted − real) ÷ real, percent. */
  totalErrorPct: number;
  stuckNamed: boolean;
  /** Nodes the rehearsal put on the other side of the window's end. */
  fitsDiffer: string[];
  startErrorMin: { median: number; max: number };
  endErrorMin: { median: number; max: number };
  slow: { node: string; predictedMin?: number; realMin?: number };
}

export async function runRehearseAccuracyBench(scale = 20): Promise<AccuracyFigures[]> {
  return [await embeddedCase(scale)];
}

async function embeddedCase(scale: number): Promise<AccuracyFigures> {
  const clock = createHeldClock({ scale, start: new Date('2030-01-07T21:00:00Z') });
  const sim = await startTestSim({
    scenario: 'fleet',
    nodes: NODES,
    podsPerNode: 2,
    clock,
    delays: {
      rebootIssueDelayMs: ISSUE_DELAY_MS,
      rebootDowntimeMs: DOWNTIME_MS,
      // The executor runs in this process: its Job's pod stays active, as the twin's does.
      jobPodRunMs: 24 * 3_600_000,
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-rehearse-bench-'));
  try {
    // In the order the scenario made them (its pools take turns): the first three are one per pool.
    const names = sim.store
      .list(R.nodes)
      .map((n) => n.metadata.name ?? '')
      .sort((a, b) => numberOf(a) - numberOf(b));
    for (const name of names) mark(sim, name, false); // the scenario marks every seventh node
    const stuck = names[STUCK_INDEX]!;
    const slow = names[SLOW_INDEX]!;
    await guardPodOnNode(sim, { name: 'guarded', node: stuck, selector: 'matchLabels' });
    // 1. A past: a few nodes rolled on another night, so the cluster holds observed durations.
    const warmUp = join(dir, 'warm-up.yaml');
    writeFileSync(warmUp, configText(sim.kubeconfigPath, undefined));
    for (const name of names.slice(0, WARM_UP_NODES)) mark(sim, name, true);
    await runForReal(sim, warmUp, { nodes: names.slice(0, WARM_UP_NODES), horizonMs: 3_600_000 });
    // 2. Tonight: everything marked a minute before the window; the rehearsal with time held.
    clock.hold();
    clock.skipTo(new Date(Date.parse(WINDOW_OPENS) - 60_000));
    for (const name of names) mark(sim, name, true);
    const campaign = join(dir, 'kubemaint.yaml');
    writeFileSync(
      campaign,
      configText(sim.kubeconfigPath, { start: WINDOW_OPENS, end: WINDOW_CLOSES }),
    );
    const html = process.env['BENCH_REHEARSAL_HTML'];
    const rehearsalStarted = Date.now();
    const result = await runCli(
      [
        'rehearse',
        '--config',
        campaign,
        '--at',
        WINDOW_OPENS,
        '--json',
        ...(html ? ['--html', html] : []),
      ],
      { cwd: dir },
    );
    const rehearsalWallS = (Date.now() - rehearsalStarted) / 1000;
    if (result.code !== 0) throw new Error(`kubemaint rehearse failed: ${result.stderr}`);
    const report = JSON.parse(result.stdout) as RehearsalReport;
    // The docs' excerpt (README, docs/rehearse.md): the same report as the CLI prints it.
    const text = process.env['BENCH_REHEARSAL_TEXT'];
    if (text) writeFileSync(text, rehearsalText(report));
    // 3. The same campaign for real, on the same cluster, the slow reboot included.
    clock.run();
    const realStarted = Date.now();
    const { requests, holds } = await runForReal(sim, campaign, {
      nodes: names,
      window: { opens: Date.parse(WINDOW_OPENS), closes: Date.parse(WINDOW_CLOSES) },
      horizonMs: 4 * 3_600_000,
      slowNode: slow,
    });
    const realWallS = (Date.now() - realStarted) / 1000;
    // 4. Side by side.
    const closes = Date.parse(WINDOW_CLOSES);
    const predicted = side(
      report.nodes.map((n) => predictedOutcome(n, 30)),
      rehearsalWallS,
    );
    const real = side(
      requests.map((r) => realOutcome(r, closes, stuckBy(holds, r.node))),
      realWallS,
    );
    return compare({
      case: 'embedded sim (stuck PDB, one slow reboot)',
      nodes: NODES,
      concurrency: CONCURRENCY,
      windowMinutes: (Date.parse(WINDOW_CLOSES) - Date.parse(WINDOW_OPENS)) / 60_000,
      scale,
      durations: report.durations.reboot.said,
      predicted,
      real,
      slow,
    });
  } finally {
    await sim.close();
    clock.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The campaign's config: three slots (that many nodes may be down at once), every node auto-approved. */
function configText(
  kubeconfig: string,
  window: { start: string; end: string } | undefined,
): string {
  const hhmm = (iso: string) => iso.slice(11, 16);
  return [
    'cluster:',
    '  type: kubeconfig',
    '  name: rehearse-accuracy',
    '  kubeconfig:',
    `    path: ${kubeconfig}`,
    'kubelet: {enabled: false}',
    `slot: {concurrency: ${CONCURRENCY}}`,
    `blockers: {maxUnhealthyNodes: ${CONCURRENCY}}`,
    'approval:',
    '  approvers: {users: [UALICE]}',
    '  autoApprove: {nodeSelector: kubernetes.io/os=linux}',
    ...(window
      ? [
          'windows:',
          '  - days: [mon, tue, wed, thu, fri, sat, sun]',
          `    start: '${hhmm(window.start)}'`,
          `    end: '${hhmm(window.end)}'`,
        ]
      : []),
    '',
  ].join('\n');
}

export function mark(sim: Sim, node: string, on: boolean): void {
  const since = new Date(sim.clock.now().getTime() - 60_000).toISOString();
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

const ACTIVE = new Set(['proposed', 'approved', 'running', 'verifying']);

/**
 * The campaign as `serve` runs it, on the cluster's clock: a tick every minute (the config's
 * schedule) and one whenever serve's watches see a change, the real executor for every Job. Ends
 * when every request of `nodes` has ended, or once the window has closed with nothing in flight.
 */
export async function runForReal(
  sim: TestSim,
  configPath: string,
  options: {
    nodes: readonly string[];
    /** The campaign's window, ms: it ends when the window has closed with nothing in flight. */
    window?: { opens: number; closes: number };
    horizonMs: number;
    slowNode?: string;
  },
): Promise<{ requests: MaintenanceRequest[]; holds: PdbHolds }> {
  const log = silentLogger();
  const config = loadConfig({ path: configPath, env: {} });
  const runtime = await openControl(config, {
    log,
    kubeconfigPath: sim.kubeconfigPath,
    clock: sim.clock,
  });
  const { deps } = runtime;
  const executor = simExecutorSettings(settingsFromConfig(forSimHost(config)));
  deps.settings = { ...deps.settings, jobFor: inProcessJobFor(executor, config.namespace) };
  let slowed = false;
  const jobs = runJobsInProcess(sim, executor, {
    namespace: config.namespace,
    // The fault: this machine hangs in its boot and starts over (a second reboot while it is down).
    onHostCall: ({ node, argv }) => {
      if (node !== options.slowNode || argv[1] !== 'reboot' || slowed) return;
      slowed = true;
      sim.clock.after(ISSUE_DELAY_MS + DOWNTIME_MS * 0.9, () => sim.admin.reboot(node));
    },
  });
  const loop = createTickLoop({
    tick: (o) => runTick(deps, o),
    now: () => sim.clock.now(),
  });
  const untilMinute = 60_000 - (sim.clock.now().getTime() % 60_000);
  let everyMinute = sim.clock.after(untilMinute, () => {
    loop.kick();
    everyMinute = sim.clock.every(60_000, () => loop.kick());
  });
  const watch = watchForChanges(runtime.connection.kubeConfig, {
    namespace: config.namespace,
    rebootLabel: config.detection.rebootLabel,
    log,
    onChange: () => loop.kick(),
  });
  loop.kick({ skewScan: true });
  const wanted = new Set(options.nodes);
  const startedAt = sim.clock.now().getTime();
  const holds: PdbHolds = { polls: 0, seen: new Map(), closed: new Map() };
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const mine = (await listRequests(deps)).filter((r) => wanted.has(r.node));
      const now = sim.clock.now().getTime();
      const open = options.window && now >= options.window.opens && now < options.window.closes;
      if (open) notePdbHolds(mine, simBudgets(sim), holds);
      const inFlight = mine.some((r) => r.state === 'running' || r.state === 'verifying');
      const allEnded = mine.length === wanted.size && mine.every((r) => !ACTIVE.has(r.state));
      const closed = options.window !== undefined && now >= options.window.closes;
      if (allEnded || (closed && !inFlight)) return { requests: mine, holds };
      if (now - startedAt > options.horizonMs)
        throw new Error(
          `the real campaign did not end in ${options.horizonMs / 60_000} cluster minutes: ${mine.map((r) => `${r.node} ${r.state}`).join(', ')}`,
        );
    }
  } finally {
    everyMinute();
    watch.stop();
    await loop.stop();
    await jobs.stop();
    await runtime.close();
  }
}

const PDB_HOLDS = /PDB (\S+) allows 0/;

/**
 * Which PDBs held each request while the window was open (the dispatch's preflight, or its drain
 * waiting; a request's gates are written afresh every tick, so the end of a run no longer shows
 * them), and how often each budget allowed no disruption at all: a budget that held a node for a
 * moment (its group's other pod being moved) is not one that kept it.
 */
export interface PdbHolds {
  polls: number;
  seen: Map<string, Set<string>>;
  /** Per budget `namespace/name`, the polls at which its status allowed 0 disruptions. */
  closed: Map<string, number>;
}

export function notePdbHolds(
  requests: readonly MaintenanceRequest[],
  budgets: readonly { name: string; disruptionsAllowed: number }[],
  holds: PdbHolds,
): void {
  holds.polls += 1;
  for (const b of budgets)
    if (b.disruptionsAllowed <= 0) holds.closed.set(b.name, (holds.closed.get(b.name) ?? 0) + 1);
  for (const r of requests) {
    const reasons = [
      ...(r.blockedReasons ?? []),
      ...(r.drain?.waitingOn ?? []).map((w) => w.reason),
    ];
    const seen = holds.seen.get(r.node) ?? new Set<string>();
    for (const reason of reasons) {
      const pdb = PDB_HOLDS.exec(reason)?.[1];
      if (pdb) seen.add(pdb);
    }
    holds.seen.set(r.node, seen);
  }
}

/** A PDB that held `node` and allowed no disruption in nine polls of ten (name, no namespace). */
export function stuckBy(holds: PdbHolds, node: string): string | undefined {
  const kept = [...(holds.seen.get(node) ?? [])].find(
    (pdb) => (holds.closed.get(pdb) ?? 0) >= 0.9 * holds.polls,
  );
  return kept?.replace(/^.*\//, '');
}

/** Budgets as their status says, from the sim's store. */
export function simBudgets(sim: Pick<Sim, 'store'>) {
  return sim.store.list(R.pdbs).map((p) => ({
    name: `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`,
    disruptionsAllowed:
      (p.status as { disruptionsAllowed?: number } | undefined)?.disruptionsAllowed ?? 0,
  }));
}

/**
 * The rehearsal's node as the comparison reads it: stuck when a PDB never allows its eviction (the
 * snapshot says so) or held it `stuckMinutes` and more (its name without the namespace).
 */
export function predictedOutcome(
  n: RehearsalReport['nodes'][number],
  stuckMinutes: number,
): NodeOutcome {
  const pdb = (
    n.cannotEvict.map((c) => /PDB (\S+) never allows/.exec(c.why)?.[1]).find(Boolean) ??
    n.pdbWaits.find((w) => w.minutes >= stuckMinutes)?.pdb
  )?.replace(/^.*\//, '');
  return {
    node: n.node,
    state: n.state,
    ...(n.start ? { start: n.start } : {}),
    ...(n.end ? { end: n.end } : {}),
    fits: n.window === 'fits',
    ...(n.state !== 'done' && pdb ? { pdb } : {}),
  };
}

export function realOutcome(r: MaintenanceRequest, closes: number, pdb?: string): NodeOutcome {
  const at = (state: string) => r.history.findLast((h) => h.to === state)?.at;
  const start = at('running');
  const end = r.state === 'done' ? at('done') : undefined;
  return {
    node: r.node,
    state: r.state,
    ...(start ? { start } : {}),
    ...(end ? { end } : {}),
    fits: end !== undefined && Date.parse(end) <= closes,
    ...(r.state !== 'done' && pdb ? { pdb } : {}),
  };
}

export function side(nodes: NodeOutcome[], wallS: number): Side {
  const starts = nodes.flatMap((n) => (n.start ? [Date.parse(n.start)] : []));
  const ends = nodes.flatMap((n) => (n.end ? [Date.parse(n.end)] : []));
  return {
    totalMinutes: ends.length ? round((Math.max(...ends) - Math.min(...starts)) / 60_000) : 0,
    finishedInWindow: nodes.filter((n) => n.fits).length,
    stuck: nodes
      .filter((n) => n.pdb)
      .map((n) => `${n.node} (PDB ${n.pdb ?? ''})`)
      .sort(),
    nodes,
    wallS: round(wallS),
  };
}

export function compare(input: {
  case: string;
  nodes: number;
  concurrency: number;
  windowMinutes: number;
  scale: number;
  durations: string;
  predicted: Side;
  real: Side;
  slow: string;
}): AccuracyFigures {
  const { predicted, real } = input;
  const byNode = new Map(predicted.nodes.map((n) => [n.node, n]));
  const pairs = real.nodes.flatMap((r) => {
    const p = byNode.get(r.node);
    return p ? [{ p, r }] : [];
  });
  const differences = (key: 'start' | 'end') =>
    pairs.flatMap(({ p, r }) =>
      p[key] && r[key] ? [Math.abs(Date.parse(p[key]) - Date.parse(r[key])) / 60_000] : [],
    );
  const spread = (values: number[]) => ({
    median: round(median(values)),
    max: round(Math.max(0, ...values)),
  });
  const minutesOf = (n: NodeOutcome | undefined) =>
    n?.start && n.end ? round((Date.parse(n.end) - Date.parse(n.start)) / 60_000) : undefined;
  const slowPredicted = minutesOf(byNode.get(input.slow));
  const slowReal = minutesOf(real.nodes.find((n) => n.node === input.slow));
  return {
    case: input.case,
    nodes: input.nodes,
    concurrency: input.concurrency,
    windowMinutes: input.windowMinutes,
    scale: input.scale,
    durations: input.durations,
    predicted,
    real,
    totalErrorPct: real.totalMinutes
      ? round(((predicted.totalMinutes - real.totalMinutes) / real.totalMinutes) * 100)
      : Number.POSITIVE_INFINITY,
    stuckNamed: real.stuck.length > 0 && predicted.stuck.join() === real.stuck.join(),
    fitsDiffer: pairs.filter(({ p, r }) => p.fits !== r.fits).map(({ r }) => r.node),
    startErrorMin: spread(differences('start')),
    endErrorMin: spread(differences('end')),
    slow: {
      node: input.slow,
      ...(slowPredicted !== undefined ? { predictedMin: slowPredicted } : {}),
      ...(slowReal !== undefined ? { realMin: slowReal } : {}),
    },
  };
}

const numberOf = (name: string): number => Number(/(\d+)$/.exec(name)?.[1] ?? 0);
const round = (n: number): number => Math.round(n * 10) / 10;
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export function accuracyTable(cases: readonly AccuracyFigures[]): string {
  const row = (f: AccuracyFigures) =>
    `| ${f.case} | ${f.predicted.totalMinutes} min | ${f.real.totalMinutes} min | ${f.totalErrorPct > 0 ? '+' : ''}${f.totalErrorPct} % | ${f.predicted.finishedInWindow} / ${f.real.finishedInWindow} | ${f.fitsDiffer.length ? f.fitsDiffer.join(', ') : 'none'} | ${f.startErrorMin.median} / ${f.startErrorMin.max} | ${f.endErrorMin.median} / ${f.endErrorMin.max} | ${f.predicted.stuck.join(', ') || '—'} / ${f.real.stuck.join(', ') || '—'} | ${f.slow.node}: ${f.slow.predictedMin ?? '—'} / ${f.slow.realMin ?? '—'} min | ${f.predicted.wallS} s / ${f.real.wallS} s |`;
  return [
    '| case | predicted total | real total | error | inside the window (predicted / real) | nodes on the other side of the window | start error, min (median / max) | end error, min (median / max) | stuck (predicted / real) | slow reboot (predicted / real) | wall (rehearsal / real) |',
    '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | --- | ---: |',
    ...cases.map(row),
    '',
    ...cases.map(
      (f) =>
        `${f.case}: ${f.nodes} nodes, ${f.concurrency} slots, a ${f.windowMinutes}-minute window, the cluster at sim scale ${f.scale}; durations the rehearsal used: ${f.durations}.`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [scale] = process.argv.slice(2).map(Number);
  const result = await runRehearseAccuracyBench(scale || undefined);
  process.stdout.write(`${accuracyTable(result)}\n\n${JSON.stringify(result, null, 2)}\n`);
}
