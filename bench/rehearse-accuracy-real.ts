/**
 * The rehearsal against a campaign run for real on the real control plane (issue 21, second case):
 * `npm run real-cluster`'s kube-apiserver, etcd, controller-manager and scheduler in their own folder
 * (`.kubemaint/rc-h21`, fresh, stopped afterwards), a simulated fleet attached with `kubemaint sim
 * --attach` (its own zone; every executor Job runs the real executor as a process with its pod-bound
 * token), the workload of the fleet scenario (a DaemonSet pod and a pod of a PDB-guarded Deployment
 * on every node), one more pod pinned to one node behind a PDB that never allows an eviction, and
 * `kubemaint serve` on its own ServiceAccount. Real time throughout: nothing here is scaled, so the
 * window is minutes long and a machine is down for `downtimeS` seconds; one machine's reboot is about
 * twice as long (a second reboot through the fleet's host endpoint while it is down).
 *
 * As in the embedded case: three nodes rolled first give the cluster observed durations; every node
 * is marked; `kubemaint rehearse --json` reads the cluster (admin kubeconfig) and predicts from the
 * window's opening; then serve runs the campaign and the two are compared node by node.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, KubeConfig, PolicyV1Api, CoreV1Api } from '@kubernetes/client-node';
import { listRequests } from '../src/app/control/commands.js';
import type { RehearsalReport } from '../src/app/control/rehearsal.js';
import { ANN_REBOOT_REQUIRED_SINCE, LABEL_REBOOT_REQUIRED } from '../src/core/names.js';
import type { MaintenanceRequest } from '../src/core/request.js';
import { down, up } from '../scripts/real-cluster/control-plane.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
} from '../scripts/real-cluster/versions.js';
import { MAIN, runCli } from '../test/support/cli-process.js';
import { testControlDeps } from '../test/support/control.js';
import { cli } from '../test/support/executor-fleet.js';
import { realCluster } from '../test/support/real-cluster.js';
import {
  compare,
  notePdbHolds,
  predictedOutcome,
  realOutcome,
  side,
  stuckBy,
  type PdbHolds,
  type AccuracyFigures,
} from './rehearse-accuracy.js';
import { installWithAlice } from './roll-on.js';

const RC_DIR = '.kubemaint/rc-h21';
const RC_PORT = 16484;
const NS = 'accuracy';
const ZONE = 'accuracy';
const PREFIX = 'acc-';
const WARM_UP_NODES = 3;
const STUCK_INDEX = 7;
const SLOW_INDEX = 13;
const ACTIVE = new Set(['proposed', 'approved', 'running', 'verifying']);

export interface RealCaseOptions {
  nodes: number;
  concurrency: number;
  windowMinutes: number;
  downtimeS: number;
}

export async function realControlPlaneCase(
  options: RealCaseOptions = { nodes: 30, concurrency: 3, windowMinutes: 8, downtimeS: 40 },
): Promise<AccuracyFigures> {
  const say = (line: string) => process.stderr.write(`# rehearse-accuracy (real): ${line}\n`);
  const names = Array.from({ length: options.nodes }, (_, i) => `${PREFIX}${i}`);
  const state = await up({
    version: parseKubernetesVersion(DEFAULT_KUBERNETES_VERSION),
    dir: RC_DIR,
    port: RC_PORT,
    fresh: true,
    say,
  });
  process.env['KUBEMAINT_REAL_KUBECONFIG'] = state.kubeconfig;
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-rehearse-real-bench-'));
  const children = startChildren(dir);
  try {
    const identities = await realCluster();
    const admin = new KubeConfig();
    admin.loadFromFile(state.kubeconfig);
    await installWithAlice(admin, identities.userKubeconfig('alice'));
    say('infra/k8s applied');
    const argv = await cli();
    const attached = await children.start(
      [
        'sim',
        '--attach',
        state.kubeconfig,
        '--nodes',
        String(options.nodes),
        '--name-prefix',
        PREFIX,
        '--label',
        `topology.kubernetes.io/zone=${ZONE}`,
        '--reboot-downtime',
        String(options.downtimeS),
        '--image',
        `ghcr.io/kubemaint/kubemaint:*=${argv.join(' ')}`,
      ],
      /kubemaint sim attached: nodes=\d+.* host=(\S+)/,
      'sim --attach',
      [process.execPath, '--import', import.meta.resolve('tsx'), MAIN],
    );
    const hostUrl = attached.match[1]!;
    await workload(admin, names);
    say(`${options.nodes} nodes attached, the workload running`);
    const deps = testControlDeps({
      kubeconfigPath: state.kubeconfig,
      clock: { now: () => new Date() },
    });
    const mark = async (group: readonly string[]) => {
      const since = new Date(Date.now() - 60_000).toISOString();
      for (const name of group)
        await deps.cluster.patchNode(name, {
          labels: { [LABEL_REBOOT_REQUIRED]: 'true' },
          annotations: { [ANN_REBOOT_REQUIRED_SINCE]: since },
        });
    };
    const serveKubeconfig = identities.serviceAccountKubeconfig('kubemaint', 'kubemaint-serve');
    // 1. A past: a few nodes rolled without a window, so the cluster holds observed durations.
    writeFileSync(join(dir, 'warm-up.yaml'), configText(serveKubeconfig, options, undefined));
    const warmServe = await children.start(
      ['serve', '--config', 'warm-up.yaml', '--ops-port', '0', '--ops-host', '127.0.0.1'],
      /serve ready: /,
      'serve (warm-up)',
    );
    await mark(names.slice(0, WARM_UP_NODES));
    await until(deps, names.slice(0, WARM_UP_NODES), { horizonMs: 10 * 60_000 });
    await children.stop(warmServe.child);
    say('warm-up rolled');
    // 2. Tonight: a window opening in a few minutes (the rehearsal runs before it), every node marked.
    const opens = new Date(Math.ceil((Date.now() + 3 * 60_000) / 60_000) * 60_000);
    const closes = new Date(opens.getTime() + options.windowMinutes * 60_000);
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      configText(serveKubeconfig, options, { opens, closes }),
    );
    await mark(names);
    const rehearsalStarted = Date.now();
    const result = await runCli(
      ['rehearse', '--kubeconfig', state.kubeconfig, '--at', opens.toISOString(), '--json'],
      { cwd: dir },
    );
    const rehearsalWallS = (Date.now() - rehearsalStarted) / 1000;
    if (result.code !== 0) throw new Error(`kubemaint rehearse failed: ${result.stderr}`);
    const report = JSON.parse(result.stdout) as RehearsalReport;
    if (Date.now() > opens.getTime() - 30_000)
      throw new Error('the rehearsal took until the window opened: give it more time before');
    say(`rehearsed in ${Math.round(rehearsalWallS)} s; the window opens at ${opens.toISOString()}`);
    // 3. The campaign for real, the slow reboot included.
    await children.start(
      ['serve', '--config', 'kubemaint.yaml', '--ops-port', '0', '--ops-host', '127.0.0.1'],
      /serve ready: /,
      'serve',
    );
    const realStarted = Date.now();
    const holds: PdbHolds = { polls: 0, seen: new Map(), closed: new Map() };
    const requests = await until(deps, names, {
      holds,
      opensAt: opens,
      closesAt: closes,
      horizonMs: (options.windowMinutes + 20) * 60_000,
      onRequest: slowReboot(hostUrl, names[SLOW_INDEX]!, options.downtimeS),
    });
    const realWallS = (Date.now() - realStarted) / 1000;
    const mine = new Set(names);
    return compare({
      case: 'real control plane (kube-apiserver, attached fleet, serve)',
      nodes: options.nodes,
      concurrency: options.concurrency,
      windowMinutes: options.windowMinutes,
      scale: 1,
      durations: report.durations.reboot.said,
      predicted: side(
        report.nodes
          .filter((n) => mine.has(n.node))
          .map((n) => predictedOutcome(n, options.windowMinutes / 2)),
        rehearsalWallS,
      ),
      real: side(
        requests.map((r) => realOutcome(r, closes.getTime(), stuckBy(holds, r.node))),
        realWallS,
      ),
      slow: names[SLOW_INDEX]!,
    });
  } finally {
    await children.stopAll();
    rmSync(dir, { recursive: true, force: true });
    await down(RC_DIR, { purge: true });
  }
}

function configText(
  kubeconfig: string,
  options: RealCaseOptions,
  window: { opens: Date; closes: Date } | undefined,
): string {
  const hhmm = (d: Date) => d.toISOString().slice(11, 16);
  return [
    'cluster:',
    '  type: kubeconfig',
    '  name: rehearse-accuracy-real',
    `  kubeconfig: {path: ${kubeconfig}}`,
    'kubelet: {enabled: false}',
    `slot: {concurrency: ${options.concurrency}}`,
    `blockers: {maxUnhealthyNodes: ${options.concurrency}}`,
    'approval:',
    '  approvers: {kubernetes: {users: [alice]}}',
    `  autoApprove: {nodeSelector: topology.kubernetes.io/zone=${ZONE}}`,
    'reboot: {command: ["kubemaint-sim-host", "reboot"]}',
    'executor: {hostPrefix: []}',
    ...(window
      ? [
          'windows:',
          '  - days: [mon, tue, wed, thu, fri, sat, sun]',
          `    start: '${hhmm(window.opens)}'`,
          `    end: '${hhmm(window.closes)}'`,
          '    timezone: UTC',
        ]
      : []),
    '',
  ].join('\n');
}

/**
 * The fleet scenario's shape on the attached nodes: a DaemonSet, Deployments of ten replicas spread
 * one per node with a PDB of maxUnavailable 1 each, and one replica pinned to the stuck node behind
 * a PDB of minAvailable 1.
 */
async function workload(admin: KubeConfig, names: readonly string[]): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  const apps = admin.makeApiClient(AppsV1Api);
  const policy = admin.makeApiClient(PolicyV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
  const zone = { 'topology.kubernetes.io/zone': ZONE };
  const container = [{ name: 'app', image: 'example.invalid/app:1' }];
  await apps.createNamespacedDaemonSet({
    namespace: NS,
    body: {
      metadata: { name: 'node-agent' },
      spec: {
        selector: { matchLabels: { app: 'node-agent' } },
        template: {
          metadata: { labels: { app: 'node-agent' } },
          spec: {
            nodeSelector: zone,
            tolerations: [{ operator: 'Exists' }],
            containers: container,
          },
        },
      },
    },
  });
  const deployment = async (
    app: string,
    replicas: number,
    nodeSelector: Record<string, string>,
    budget: { minAvailable: number } | { maxUnavailable: number },
  ) => {
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: app },
        spec: {
          replicas,
          selector: { matchLabels: { app } },
          template: {
            metadata: { labels: { app } },
            spec: {
              nodeSelector,
              terminationGracePeriodSeconds: 5,
              topologySpreadConstraints: [
                {
                  maxSkew: 1,
                  topologyKey: 'kubernetes.io/hostname',
                  whenUnsatisfiable: 'ScheduleAnyway',
                  labelSelector: { matchLabels: { app } },
                },
              ],
              containers: container,
            },
          },
        },
      },
    });
    await policy.createNamespacedPodDisruptionBudget({
      namespace: NS,
      body: { metadata: { name: app }, spec: { ...budget, selector: { matchLabels: { app } } } },
    });
  };
  for (let group = 0; group * 10 < names.length; group++)
    await deployment(`app-${group + 1}`, Math.min(10, names.length - group * 10), zone, {
      maxUnavailable: 1,
    });
  await deployment(
    'guarded',
    1,
    { 'kubernetes.io/hostname': names[STUCK_INDEX]! },
    { minAvailable: 1 },
  );
  const expected = names.length * 2 + 1;
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    const pods = (await core.listNamespacedPod({ namespace: NS })).items;
    const ready = pods.filter((p) =>
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    if (ready.length >= expected) return;
    if (Date.now() > deadline)
      throw new Error(`the workload did not become ready: ${ready.length} of ${expected} pods`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** The fault: the machine hangs in its boot and starts over (a second reboot while it is down). */
function slowReboot(hostUrl: string, node: string, downtimeS: number) {
  let scheduled = false;
  return (request: MaintenanceRequest) => {
    if (scheduled || request.node !== node || !request.hostCommandIssuedAt) return;
    scheduled = true;
    const at = Date.parse(request.hostCommandIssuedAt) + 2_000 + downtimeS * 900;
    setTimeout(
      () =>
        void fetch(`${hostUrl}/_sim/nodes/${node}/reboot`, { method: 'POST' }).catch(
          () => undefined,
        ),
      Math.max(0, at - Date.now()),
    );
  };
}

/** Budgets as their status says, read with the admin's client. */
async function budgets() {
  const admin = new KubeConfig();
  admin.loadFromFile(process.env['KUBEMAINT_REAL_KUBECONFIG'] ?? '');
  const list = await admin.makeApiClient(PolicyV1Api).listPodDisruptionBudgetForAllNamespaces();
  return list.items.map((p) => ({
    name: `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`,
    disruptionsAllowed: p.status?.disruptionsAllowed ?? 0,
  }));
}

async function until(
  deps: ReturnType<typeof testControlDeps>,
  nodes: readonly string[],
  options: {
    opensAt?: Date;
    closesAt?: Date;
    horizonMs: number;
    onRequest?: (r: MaintenanceRequest) => void;
    holds?: PdbHolds;
  },
): Promise<MaintenanceRequest[]> {
  const wanted = new Set(nodes);
  const deadline = Date.now() + options.horizonMs;
  for (;;) {
    const mine = (await listRequests(deps)).filter((r) => wanted.has(r.node));
    for (const r of mine) options.onRequest?.(r);
    const open =
      options.opensAt !== undefined &&
      Date.now() >= options.opensAt.getTime() &&
      Date.now() < (options.closesAt?.getTime() ?? Infinity);
    if (options.holds && open) notePdbHolds(mine, await budgets(), options.holds);
    const inFlight = mine.some((r) => r.state === 'running' || r.state === 'verifying');
    const allEnded = mine.length === wanted.size && mine.every((r) => !ACTIVE.has(r.state));
    const closed = options.closesAt !== undefined && Date.now() >= options.closesAt.getTime();
    if (allEnded || (closed && !inFlight)) return mine;
    if (Date.now() > deadline)
      throw new Error(
        `the campaign did not end in time: ${mine.map((r) => `${r.node} ${r.state}`).join(', ')}`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** kubemaint processes of this run: started until a line says they are ready, stopped in reverse. */
function startChildren(cwd: string) {
  const children: ChildProcess[] = [];
  const stop = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return {
    start: (args: string[], ready: RegExp, what: string, command?: string[]) =>
      new Promise<{ child: ChildProcess; match: RegExpExecArray }>((resolve, reject) => {
        void (async () => {
          const argv = command ?? (await cli());
          const child = spawn(argv[0]!, [...argv.slice(1), ...args], {
            cwd,
            env: { ...process.env, KUBEMAINT_LOG_LEVEL: 'warn' },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          children.push(child);
          let out = '';
          const look = (c: Buffer) => {
            out += c.toString();
            const match = ready.exec(out);
            if (match) resolve({ child, match });
          };
          child.stdout.on('data', look);
          child.stderr.on('data', look);
          child.on('exit', (code) =>
            reject(new Error(`${what} exited (${code}): ${out.slice(-3000)}`)),
          );
        })();
      }),
    stop,
    async stopAll() {
      for (const child of children.reverse()) await stop(child);
    },
  };
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const { accuracyTable } = await import('./rehearse-accuracy.js');
  const [nodes, concurrency, windowMinutes, downtimeS] = process.argv.slice(2).map(Number);
  const result = await realControlPlaneCase({
    nodes: nodes || 30,
    concurrency: concurrency || 3,
    windowMinutes: windowMinutes || 8,
    downtimeS: downtimeS || 40,
  });
  process.stdout.write(`${accuracyTable([result])}\n\n${JSON.stringify(result, null, 2)}\n`);
}
