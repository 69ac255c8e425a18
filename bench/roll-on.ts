/**
 * A fleet roll on any apiserver, the same way on each (bench/real-vs-sim.ts runs it on kube-apiserver
 * and on the embedded sim): infra/k8s installed, 1 + N simulated kubelets attached with `kubemaint sim
 * --attach` (in a zone of their own; the executor image mapped to the CLI bundle, so every Job runs
 * the real executor as a process with its pod-bound token), `kubemaint serve` on its own
 * ServiceAccount token, auto-approval for the zone, and the nodes marked: first one alone (the
 * ideal's unit), then N at once. Real time: both servers run at the wall clock's speed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { listRequests } from '../src/app/control/commands.js';
import { ANN_REBOOT_REQUIRED_SINCE, LABEL_REBOOT_REQUIRED } from '../src/core/names.js';
import type { MaintenanceRequest } from '../src/core/request.js';
import { applyKubemaint } from '../test/support/apply-infra.js';
import { testControlDeps } from '../test/support/control.js';
import { MAIN } from '../test/support/cli-process.js';
import { cli } from '../test/support/executor-fleet.js';
import { INFRA_K8S } from '../test/support/real-cluster.js';
import type { Identities } from '../test/support/sim-identities.js';

export interface RollOn {
  nodes: number;
  concurrency: number;
  oneNodeS: number;
  idealS: number;
  rollS: number;
  /** ideal ÷ roll */
  ofIdeal: number;
  handOffMs: { p50: number; p95: number; max: number };
  /** Median per node: Job created → host command issued (executor start, cordon, drain). */
  executorMs: number;
  /** Median per node: host command → request done (the reboot, the kubelet back, serve's proof). */
  hostToDoneMs: number;
  /** The N-node roll's span (ISO times), for the apiserver's audit log. */
  span: { from: string; to: string };
  /** serve's CPU seconds (user + system) over the N-node roll, ÷ N. */
  serveCpuPerNodeS: number;
  /** serve's peak RSS (VmHWM) when the roll ended. */
  servePeakRssMiB: number;
  /** serve's peak RSS when it said it was ready: what it takes before any roll. */
  serveReadyRssMiB: number;
  /** serve's ticks over the N-node roll, from its kubemaint_tick_duration_seconds histogram. */
  ticks: TickTimes;
}

export interface TickTimes {
  count: number;
  meanMs: number;
  /** The upper bound of the histogram bucket that holds the 99th percentile ("≤ 2.5 s"). */
  p99AtMostS: number;
}

/** The tick histogram's buckets, sum and count as serve's /metrics says them now. */
async function tickHistogram(
  opsUrl: string,
): Promise<{ buckets: Map<number, number>; sum: number; count: number }> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const buckets = new Map<number, number>();
  let sum = 0;
  let count = 0;
  for (const line of text.split('\n')) {
    const bucket = /^kubemaint_tick_duration_seconds_bucket\{le="([^"]+)"\} (\S+)/.exec(line);
    if (bucket) buckets.set(bucket[1] === '+Inf' ? Infinity : Number(bucket[1]), Number(bucket[2]));
    const total = /^kubemaint_tick_duration_seconds_(sum|count) (\S+)/.exec(line);
    if (total?.[1] === 'sum') sum = Number(total[2]);
    if (total?.[1] === 'count') count = Number(total[2]);
  }
  return { buckets, sum, count };
}

/** Ask a process started with --heapsnapshot-signal=SIGUSR2 for its heap; wait until it is written. */
async function heapSnapshot(pid: number, dir: string): Promise<void> {
  const files = () => readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot'));
  const before = new Set(files());
  process.kill(pid, 'SIGUSR2');
  let size = -1;
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 1_000));
    const written = files().find((f) => !before.has(f));
    if (!written) continue;
    const now = statSync(join(dir, written)).size;
    if (now > 0 && now === size) return;
    size = now;
  }
  throw new Error(`no heap snapshot of ${pid} in ${dir} after 10 min`);
}

/** What the histogram gained between two reads: the ticks of that span alone. */
export function ticksBetween(
  before: Awaited<ReturnType<typeof tickHistogram>>,
  after: Awaited<ReturnType<typeof tickHistogram>>,
): TickTimes {
  const count = after.count - before.count;
  const bounds = [...after.buckets.keys()].sort((a, b) => a - b);
  const p99 = bounds.find(
    (le) => (after.buckets.get(le) ?? 0) - (before.buckets.get(le) ?? 0) >= 0.99 * count,
  );
  return {
    count,
    meanMs: count > 0 ? Math.round(((after.sum - before.sum) / count) * 1000) : 0,
    p99AtMostS: p99 ?? Infinity,
  };
}

/** A process's CPU seconds so far (user + system, /proc/PID/stat) and its peak RSS in MiB. */
export function processUse(pid: number): { cpuS: number; peakRssMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { cpuS: ticks / 100, peakRssMiB: Math.round(Number(hwm ?? 0) / 102.4) / 10 };
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

/**
 * infra/k8s on an apiserver, with alice as the approver people would be: RBAC first, then the rest
 * once her rights exist, since she probes that the admission policies are enforced.
 */
export async function installWithAlice(admin: KubeConfig, aliceKubeconfig: string): Promise<void> {
  const probe = new KubeConfig();
  probe.loadFromFile(aliceKubeconfig);
  await applyKubemaint(admin, INFRA_K8S, probe).catch(() => undefined); // RBAC first, then:
  await admin
    .makeApiClient(RbacAuthorizationV1Api)
    .createNamespacedRoleBinding({
      namespace: 'kubemaint',
      body: {
        metadata: { name: 'bench-person-alice', namespace: 'kubemaint' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'kubemaint:person',
        },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
      },
    })
    .catch(() => undefined);
  await applyKubemaint(admin, INFRA_K8S, probe);
}

export async function rollOn(backend: {
  /** The admin kubeconfig (installs, attaches the fleet, marks nodes, reads back). */
  adminPath: string;
  identities: Identities;
  nodes: number;
  concurrency: number;
  say: (line: string) => void;
}): Promise<RollOn> {
  const { adminPath, identities, nodes, concurrency, say } = backend;
  const argv = await cli();
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-roll-on-'));
  const admin = new KubeConfig();
  admin.loadFromFile(adminPath);
  const children: ChildProcess[] = [];
  const outputs = new Map<string, () => string>();
  const start = (args: string[], ready: RegExp, what: string, command = argv) =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(command[0]!, [...command.slice(1), ...args], {
        cwd: dir,
        env: {
          ...process.env,
          KUBEMAINT_LOG_LEVEL:
            what === 'serve' ? (process.env['KUBEMAINT_BENCH_SERVE_LOG'] ?? 'warn') : 'warn',
          // serve's own Node.js options (a heap limit, to tell garbage from what it keeps).
          ...(what === 'serve' && process.env['KUBEMAINT_BENCH_SERVE_NODE_OPTIONS']
            ? { NODE_OPTIONS: process.env['KUBEMAINT_BENCH_SERVE_NODE_OPTIONS'] }
            : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      outputs.set(what, () => out);
      const look = (c: Buffer) => {
        out += c.toString();
        if (ready.test(out)) resolve(child);
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
      child.on('exit', (code) =>
        reject(new Error(`${what} exited (${code}): ${out.slice(-3000)}`)),
      );
    });
  try {
    await installWithAlice(admin, identities.userKubeconfig('alice'));
    say('infra/k8s applied');
    const names = Array.from({ length: nodes + 1 }, (_, i) => `roll-${i}`);
    await start(
      [
        'sim',
        '--attach',
        adminPath,
        '--nodes',
        String(nodes + 1),
        '--name-prefix',
        'roll-',
        '--label',
        'topology.kubernetes.io/zone=roll',
        '--reboot-downtime',
        '10',
        '--image',
        `ghcr.io/kubemaint/kubemaint:*=${argv.join(' ')}`,
      ],
      /kubemaint sim attached: nodes=\d+/,
      'sim --attach',
      // From the source: the fleet puts the checkout's bin/ (kubemaint-sim-host) on its pods' PATH,
      // found beside the sim's own files, which a bundle in a temp folder has not.
      [process.execPath, '--import', import.meta.resolve('tsx'), MAIN],
    );
    say(`${nodes + 1} simulated kubelets attached`);
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      `cluster:
  type: kubeconfig
  kubeconfig: {path: ${identities.serviceAccountKubeconfig('kubemaint', 'kubemaint-serve')}}
kubelet: {enabled: false}
slot: {concurrency: ${concurrency}}
# The posted Node objects have no kubelets: they are NotReady, and not what this roll is about.
blockers: {maxUnhealthyNodes: "100%"}
approval:
  approvers: {kubernetes: {users: [alice]}}
  autoApprove: {nodeSelector: topology.kubernetes.io/zone=roll}
reboot: {command: ["kubemaint-sim-host", "reboot"]}
executor: {hostPrefix: []}
`,
    );
    // KUBEMAINT_BENCH_SERVE_CGROUP=DIR (a cgroup v1 memory or v2 folder): serve starts inside it, as
    // under a Pod's memory limit, so Node.js sizes its heap from that limit from the first instruction.
    const cgroup = process.env['KUBEMAINT_BENCH_SERVE_CGROUP'];
    const serve = await start(
      ['serve', '--config', 'kubemaint.yaml', '--ops-port', '0', '--ops-host', '127.0.0.1'],
      /serve ready: /,
      'serve',
      cgroup ? ['sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup, ...argv] : argv,
    );
    say('serve ready');
    const readyRss = processUse(serve.pid!).peakRssMiB;
    const opsUrl = /ops=(http:\/\/\S+)/.exec(outputs.get('serve')?.() ?? '')?.[1];
    if (!opsUrl)
      throw new Error(`serve's ready line has no ops address: ${outputs.get('serve')?.()}`);
    const deps = testControlDeps({ kubeconfigPath: adminPath, clock: { now: () => new Date() } });
    const pause = (paused: boolean) =>
      deps.cluster.writePause({ paused, by: 'bench', at: new Date().toISOString() });
    const roll = async (group: readonly string[]): Promise<MaintenanceRequest[]> => {
      const since = new Date(Date.now() - 60_000).toISOString();
      // Proposing and approving come before the roll, as for the ideal's one node: the pause switch
      // holds every start until each request is approved. Without it the first slots were handed
      // on while a tick was still auto-approving the rest (50 s at load 10), and those waits were
      // counted as hand-offs (the 41 s of the first 5,000-node runs).
      await pause(true);
      for (const name of group)
        await deps.cluster.patchNode(name, {
          labels: { [LABEL_REBOOT_REQUIRED]: 'true' },
          annotations: { [ANN_REBOOT_REQUIRED_SINCE]: since },
        });
      const wanted = new Set(group);
      const approvedBy = Date.now() + group.length * 10_000;
      for (;;) {
        const mine = (await listRequests(deps)).filter((r) => wanted.has(r.node));
        if (mine.length === group.length && mine.every((r) => r.state === 'approved')) break;
        if (Date.now() > approvedBy)
          throw new Error(
            `${group.length} requests were not all approved: ${mine.map((r) => `${r.node} ${r.state}`).join(', ') || 'none'}`,
          );
        await new Promise((r) => setTimeout(r, 500));
      }
      await pause(false);
      const deadline = Date.now() + group.length * 120_000;
      for (;;) {
        const mine = (await listRequests(deps)).filter((r) => wanted.has(r.node));
        const failed = mine.find((r) => r.state === 'failed');
        if (failed)
          throw new Error(
            `${failed.node} failed: ${failed.failure ?? ''}\n${JSON.stringify(failed.history, null, 1)}\n` +
              [...outputs].map(([name, text]) => `--- ${name}\n${text().slice(-6000)}`).join('\n'),
          );
        if (mine.length === group.length && mine.every((r) => r.state === 'done')) return mine;
        if (Date.now() > deadline)
          throw new Error(
            `the roll of ${group.length} did not finish: ${mine.map((r) => `${r.node} ${r.state} ${(r.blockedReasons ?? []).join('; ')}`).join(', ') || 'no requests'}\n` +
              [...outputs].map(([name, text]) => `--- ${name}\n${text().slice(-3000)}`).join('\n'),
          );
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    const at = (r: MaintenanceRequest, state: string) =>
      Date.parse(r.history.find((h) => h.to === state)?.at ?? '');
    const [alone] = await roll(names.slice(0, 1));
    const oneNodeMs = at(alone!, 'done') - at(alone!, 'running');
    say(`one node alone: ${oneNodeMs} ms`);
    const from = new Date().toISOString();
    const cpuBefore = processUse(serve.pid!).cpuS;
    const ticksBefore = await tickHistogram(opsUrl);
    const all = await roll(names.slice(1));
    const to = new Date().toISOString();
    const use = processUse(serve.pid!);
    const ticks = ticksBetween(ticksBefore, await tickHistogram(opsUrl));
    // KUBEMAINT_BENCH_HEAP_SNAPSHOT=DIR: serve's heap at the end of the roll, for where its memory
    // goes (serve must run with KUBEMAINT_BENCH_SERVE_NODE_OPTIONS="--heapsnapshot-signal=SIGUSR2
    // --diagnostic-dir=DIR").
    const snapshots = process.env['KUBEMAINT_BENCH_HEAP_SNAPSHOT'];
    if (snapshots) await heapSnapshot(serve.pid!, snapshots);
    // KUBEMAINT_BENCH_DEBUG=DIR keeps what serve said and every request, to see where a roll waited.
    const debug = process.env['KUBEMAINT_BENCH_DEBUG'];
    if (debug) {
      writeFileSync(join(debug, 'serve.log'), outputs.get('serve')?.() ?? '');
      writeFileSync(join(debug, 'requests.json'), JSON.stringify(all, null, 1));
    }
    const running = all.map((r) => at(r, 'running')).sort((a, b) => a - b);
    const frees = all.map((r) => at(r, 'done')).sort((a, b) => a - b);
    const handOffs = running.slice(concurrency).map((t, i) => Math.max(0, t - frees[i]!));
    const rollMs = Math.max(...frees) - running[0]!;
    const idealMs = Math.ceil(nodes / concurrency) * oneNodeMs;
    const hostAt = (r: MaintenanceRequest) => Date.parse(r.hostCommandIssuedAt ?? '');
    return {
      nodes,
      concurrency,
      oneNodeS: Math.round(oneNodeMs / 100) / 10,
      idealS: Math.round(idealMs / 100) / 10,
      rollS: Math.round(rollMs / 100) / 10,
      // Three places, cut rather than rounded: a goal (≥ 0.95) is never met by rounding up.
      ofIdeal: Math.floor((idealMs / rollMs) * 1000) / 1000,
      handOffMs: { p50: pct(handOffs, 50), p95: pct(handOffs, 95), max: Math.max(0, ...handOffs) },
      executorMs: pct(
        all.map((r) => hostAt(r) - at(r, 'running')),
        50,
      ),
      hostToDoneMs: pct(
        all.map((r) => at(r, 'done') - hostAt(r)),
        50,
      ),
      span: { from, to },
      serveCpuPerNodeS: Math.round(((use.cpuS - cpuBefore) / nodes) * 1000) / 1000,
      servePeakRssMiB: use.peakRssMiB,
      serveReadyRssMiB: readyRss,
      ticks,
    };
  } finally {
    for (const child of children.reverse()) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
