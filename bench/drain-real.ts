/**
 * Benchmark (issue 34, drain throughput): `kubemaint drain` of a node holding 300 pods on kube-apiserver
 * (the real control plane of `npm run real-cluster`, its own folder, fresh, stopped afterwards), with
 * a PodDisruptionBudget per workload. Simulated kubelets attached with `kubemaint sim --attach` run the
 * pods (the drained nodes take 320 pods, as a kubelet with --max-pods 320), the real scheduler places
 * the replacements on three spare nodes. Two cases, each on a node of its own: PDBs that allow one
 * disruption per workload (the drain waits for each replacement to be Ready) and PDBs that allow half
 * the workload at once (what the client, not the PDB, can do).
 * Counted: evictions per second from the first accepted eviction to the last, the apiserver's own
 * counts of eviction refusals (429: the PDB said no) and of any other 429 (API Priority and Fairness
 * throttling), and every workload's healthy pods seen through a watch the whole time: fewer than the
 * PDB's desired number is a violation.
 * Run: `npx tsx bench/drain-real.ts`. Prints a markdown table, then the figures as JSON.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { CoreV1Api, KubeConfig, makeInformer, type V1Pod } from '@kubernetes/client-node';
import { down, up } from '../scripts/real-cluster/control-plane.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
} from '../scripts/real-cluster/versions.js';
import { MAIN, runCli } from '../test/support/cli-process.js';

const RC_DIR = '.kubemaint/rc-drain-bench';
const NAMESPACE = 'drain-bench';
const WORKLOADS = 30;
const REPLICAS = 10;
const NODES = { strict: 'drain-0', half: 'drain-1', spares: ['drain-2', 'drain-3', 'drain-4'] };

export interface DrainCase {
  pdb: string;
  node: string;
  pods: number;
  exitCode: number | null;
  /** The `kubemaint drain` process, start to exit (its own start-up included). */
  wallS: number;
  /** First accepted eviction to the last one. */
  evictingS: number;
  evictionsPerS: number;
  /**
   * The evictions every PDB allowed at once at the start (each workload's disruptionsAllowed, summed),
   * per second from the first to the last of them: the client's own pace, before any replacement is
   * waited for.
   */
  firstWave: { evictions: number; perS: number };
  /** The apiserver's eviction answers during the drain: accepted, and refused by a PDB (429). */
  evictions: { accepted: number; refused: number };
  /** Any other 429 the apiserver answered during the drain (API Priority and Fairness). */
  throttled: number;
  /** The smallest margin seen: healthy pods minus the PDB's desired healthy, over every workload. */
  minMargin: number;
  violations: string[];
}

export interface DrainRealFigures {
  version: string;
  workloads: number;
  replicas: number;
  cases: DrainCase[];
}

interface Tracked {
  workload: string;
  node: string;
  ready: boolean;
  deleting: boolean;
}

function kubectl(kubeconfig: string, args: string[], input?: string): string {
  const result = spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    // kube-apiserver's /metrics is several MB, past spawnSync's 1 MiB default (ENOBUFS).
    maxBuffer: 256 * 1024 * 1024,
    ...(input === undefined ? {} : { input }),
  });
  if (result.status !== 0)
    throw new Error(
      `kubectl ${args.join(' ')} failed: ${result.error?.message ?? ''} ${result.stderr.trim()}`,
    );
  return result.stdout;
}

/** Events per second from the first of these times to the last. */
function rate(times: readonly number[]): { evictions: number; perS: number } {
  const spanS = times.length > 1 ? (times.at(-1)! - times[0]!) / 1000 : 0;
  return {
    evictions: times.length,
    perS: spanS > 0 ? Math.round(((times.length - 1) / spanS) * 10) / 10 : 0,
  };
}

/** The apiserver's request counters that matter here, from its own /metrics. */
function counters(kubeconfig: string): { accepted: number; refused: number; throttled: number } {
  const text = kubectl(kubeconfig, ['get', '--raw', '/metrics']);
  const sum = { accepted: 0, refused: 0, throttled: 0 };
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const eviction = line.includes('subresource="eviction"');
    if (eviction && line.includes('code="201"')) sum.accepted += value;
    else if (eviction && line.includes('code="429"')) sum.refused += value;
    else if (line.includes('code="429"')) sum.throttled += value;
  }
  return sum;
}

function deployments(prefix: string, maxUnavailable: number | string): string {
  const items = Array.from({ length: WORKLOADS }, (_, i) => {
    const name = `${prefix}-${String(i).padStart(2, '0')}`;
    const labels = { app: name, case: prefix };
    return [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: NAMESPACE },
        spec: {
          replicas: REPLICAS,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels },
            spec: {
              terminationGracePeriodSeconds: 1,
              containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }],
            },
          },
        },
      },
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name, namespace: NAMESPACE },
        spec: { maxUnavailable, selector: { matchLabels: { app: name } } },
      },
    ];
  }).flat();
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

async function until(
  what: string,
  check: () => boolean,
  timeoutMs: number,
  progress?: () => string,
): Promise<void> {
  const started = Date.now();
  let told = started;
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    if (progress && Date.now() - told > 30_000) {
      told = Date.now();
      process.stderr.write(`# waiting for ${what}: ${progress()}\n`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function runDrainRealBench(): Promise<DrainRealFigures> {
  const say = (line: string) => process.stderr.write(`# ${line}\n`);
  const state = await up({
    version: parseKubernetesVersion(DEFAULT_KUBERNETES_VERSION),
    dir: RC_DIR,
    port: 0,
    fresh: true,
    say,
  });
  const admin = state.kubeconfig;
  const kc = new KubeConfig();
  kc.loadFromFile(admin);
  const children: ChildProcess[] = [];
  const pods = new Map<string, Tracked>();
  let watching: { abort(): void } | undefined;
  try {
    const all = [NODES.strict, NODES.half, ...NODES.spares];
    const sim = spawn(
      process.execPath,
      [
        '--import',
        import.meta.resolve('tsx'),
        MAIN,
        'sim',
        '--attach',
        admin,
        '--nodes',
        String(all.length),
        '--name-prefix',
        'drain-',
        '--max-pods',
        '320',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBEMAINT_LOG_LEVEL: 'warn' } },
    );
    children.push(sim);
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const look = (c: Buffer) => {
        out += c.toString();
        if (/kubemaint sim attached: nodes=/.test(out)) resolve();
      };
      sim.stdout.on('data', look);
      sim.stderr.on('data', look);
      sim.on('exit', (code) => reject(new Error(`sim --attach exited (${code}): ${out}`)));
    });
    say(`${all.length} simulated kubelets attached`);
    kubectl(admin, ['create', 'namespace', NAMESPACE]);

    // Every pod of the namespace as the watch sees it: the PDB margin is judged on each event.
    const desired = new Map<string, number>();
    const margins: { at: number; workload: string; margin: number }[] = [];
    const healthy = (workload: string) =>
      [...pods.values()].filter((p) => p.workload === workload && p.ready && !p.deleting).length;
    const evictedAt = new Map<string, number>();
    // client-node's informer: it lists, watches, and lists again when a watch ends.
    const core = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer(kc, `/api/v1/namespaces/${NAMESPACE}/pods`, () =>
      core.listNamespacedPod({ namespace: NAMESPACE }),
    );
    const seen = (pod: V1Pod): void => {
      const uid = pod.metadata?.uid ?? '';
      const workload = pod.metadata?.labels?.['app'] ?? '';
      const deleting = pod.metadata?.deletionTimestamp !== undefined;
      if (deleting && !evictedAt.has(uid)) evictedAt.set(uid, Date.now());
      pods.set(uid, {
        workload,
        node: pod.spec?.nodeName ?? '',
        deleting,
        ready:
          pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      });
      judge(workload);
    };
    const judge = (workload: string): void => {
      const want = desired.get(workload);
      if (want !== undefined)
        margins.push({ at: Date.now(), workload, margin: healthy(workload) - want });
    };
    informer.on('add', seen);
    informer.on('update', seen);
    informer.on('delete', (pod: V1Pod) => {
      pods.delete(pod.metadata?.uid ?? '');
      judge(pod.metadata?.labels?.['app'] ?? '');
    });
    informer.on('error', (error: unknown) => {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      say(
        `pod informer: ${error instanceof Error ? error.message : JSON.stringify(error)}${cause ? ` (${cause.code ?? cause.message})` : ''}; again`,
      );
      setTimeout(() => void informer.start(), 1_000);
    });
    await informer.start();
    watching = { abort: () => void informer.stop() };

    const cases: DrainCase[] = [];
    for (const [prefix, node, maxUnavailable, wantHealthy] of [
      ['strict', NODES.strict, 1, REPLICAS - 1],
      ['half', NODES.half, '50%', REPLICAS / 2],
    ] as const) {
      // Only this case's node takes the workload's pods; then only the spares take replacements.
      for (const other of all) kubectl(admin, [other === node ? 'uncordon' : 'cordon', other]);
      kubectl(admin, ['apply', '-f', '-'], deployments(prefix, maxUnavailable));
      const onNode = () =>
        [...pods.values()].filter((p) => p.workload.startsWith(`${prefix}-`) && p.node === node);
      await until(
        `${WORKLOADS * REPLICAS} ${prefix} pods Ready on ${node}`,
        () => onNode().filter((p) => p.ready).length === WORKLOADS * REPLICAS,
        10 * 60_000,
        () => `${onNode().length} bound, ${onNode().filter((p) => p.ready).length} Ready`,
      );
      // The PDB controller's status must count them healthy before an eviction can pass.
      await until(
        `the ${prefix} PDBs to allow disruptions`,
        () =>
          (
            JSON.parse(kubectl(admin, ['get', 'pdb', '-n', NAMESPACE, '-o', 'json'])) as {
              items: { metadata: { name: string }; status?: { disruptionsAllowed?: number } }[];
            }
          ).items
            .filter((p) => p.metadata.name.startsWith(`${prefix}-`))
            .every((p) => (p.status?.disruptionsAllowed ?? 0) > 0),
        5 * 60_000,
      );
      for (const spare of NODES.spares) kubectl(admin, ['uncordon', spare]);
      for (let i = 0; i < WORKLOADS; i++)
        desired.set(`${prefix}-${String(i).padStart(2, '0')}`, wantHealthy);
      const ours = new Set(
        [...pods.entries()].filter(([, p]) => p.node === node).map(([uid]) => uid),
      );
      const allowedAtStart = WORKLOADS * (REPLICAS - wantHealthy);
      const before = counters(admin);
      const from = margins.length;
      say(`draining ${node}: ${ours.size} pods, PDB maxUnavailable ${maxUnavailable}`);
      const started = performance.now();
      // Not spawnSync: this process must keep reading its pod watch while the drain runs, or every
      // eviction is seen at the end (all at one time) and no PDB margin during it.
      const drain = await runCli(['drain', node, '--kubeconfig', admin, '--timeout', '15m'], {
        cwd: process.cwd(),
      });
      const wallS = (performance.now() - started) / 1000;
      if (drain.code !== 0) say(`drain exited ${drain.code}: ${drain.stderr.slice(-2000)}`);
      const after = counters(admin);
      const times = [...ours].map((uid) => evictedAt.get(uid)).filter((t) => t !== undefined);
      const evictingS = times.length > 1 ? (Math.max(...times) - Math.min(...times)) / 1000 : 0;
      const seen = margins.slice(from).filter((m) => m.workload.startsWith(`${prefix}-`));
      cases.push({
        pdb: `maxUnavailable ${maxUnavailable} of ${REPLICAS}`,
        node,
        pods: ours.size,
        exitCode: drain.code,
        wallS: Math.round(wallS * 10) / 10,
        evictingS: Math.round(evictingS * 10) / 10,
        evictionsPerS: evictingS > 0 ? Math.round((times.length / evictingS) * 10) / 10 : 0,
        firstWave: rate(times.sort((a, b) => a - b).slice(0, allowedAtStart)),
        evictions: {
          accepted: after.accepted - before.accepted,
          refused: after.refused - before.refused,
        },
        throttled: after.throttled - before.throttled,
        minMargin: Math.min(...seen.map((m) => m.margin)),
        violations: seen
          .filter((m) => m.margin < 0)
          .map((m) => `${m.workload}: ${m.margin} below its PDB`),
      });
      for (const spare of NODES.spares) kubectl(admin, ['cordon', spare]);
    }
    const version = kubectl(admin, ['version', '-o', 'json']);
    return {
      version:
        (JSON.parse(version) as { serverVersion?: { gitVersion?: string } }).serverVersion
          ?.gitVersion ?? '?',
      workloads: WORKLOADS,
      replicas: REPLICAS,
      cases,
    };
  } finally {
    watching?.abort();
    for (const child of children) child.kill('SIGTERM');
    await down(RC_DIR, { purge: true });
  }
}

export function drainRealTable(f: DrainRealFigures): string {
  return [
    `kube-apiserver ${f.version}; ${f.workloads} Deployments of ${f.replicas} pods on the drained node, a PDB each.`,
    '',
    '| PDB per workload | pods | `kubemaint drain` wall | first → last eviction | evictions/s | the first wave (what every PDB allowed at once): evictions, per second | evictions accepted / refused by a PDB | other 429s | smallest PDB margin | violations |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...f.cases.map(
      (c) =>
        `| ${c.pdb} | ${c.pods} | ${c.wallS} s | ${c.evictingS} s | ${c.evictionsPerS} | ${c.firstWave.evictions}, ${c.firstWave.perS}/s | ${c.evictions.accepted} / ${c.evictions.refused} | ${c.throttled} | ${c.minMargin} | ${c.violations.length} |`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const figures = await runDrainRealBench();
  process.stdout.write(`${drainRealTable(figures)}\n\n${JSON.stringify(figures, null, 2)}\n`);
}
