/**
 * Benchmark: the same work on kube-apiserver and on the embedded sim, side by side in one run (issue
 * 20, the ground truth): 5,000 Node objects on each (posted the same way, every kubelet current),
 * then the idle tick and the skew scan, counted at the client (bench/api-counter.ts): API requests,
 * response bytes, wall time; then a fleet roll of `roll` nodes with simulated kubelets attached
 * (bench/roll-on.ts), the same way on each. The request lines must match; a figure only the sim
 * flatters shows as a difference in the tables. The real control plane is `npm run real-cluster`'s
 * (built once, cached), in a folder of its own (`.kubemaint/rc-bench`), fresh, stopped afterwards.
 * Run: `npx tsx bench/real-vs-sim.ts [nodes] [roll]`. Prints markdown tables.
 */
import { CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTick, type TickDeps } from '../src/app/control/tick.js';
import { createKubeClient } from '../src/adapters/kube/client.js';
import { controlCluster } from '../src/adapters/kube/control-cluster.js';
import { installKubemaintKinds } from '../src/compose/sim-kinds.js';
import { down, up } from '../scripts/real-cluster/control-plane.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
} from '../scripts/real-cluster/versions.js';
import { testControlSettings } from '../test/support/control.js';
import { forgetRealCluster, realCluster } from '../test/support/real-cluster.js';
import { simIdentities } from '../test/support/sim-identities.js';
import { startTestSim } from '../test/support/sim.js';
import { countApiRequests, type ApiCount } from './api-counter.js';
import { rollOn, type RollOn } from './roll-on.js';
import { countAudit, EXECUTOR_USER, SERVE_USER, type IdentityCount } from './audit-count.js';

export interface TickSide {
  requests: number;
  bytes: number;
  wallMs: { median: number; max: number };
  lines: string[];
}

export interface RealVsSim {
  nodes: number;
  version: string;
  idle: { real: TickSide; sim?: TickSide; sameRequests?: boolean };
  skewScan: { real: TickSide; sim?: TickSide; sameRequests?: boolean };
  /** Seeding the nodes (posts, 16 at once): how the two servers take writes. */
  seedS: { real: number; sim?: number };
  roll?: { real: RollOn; sim?: RollOn };
  /** What serve and the executors asked kube-apiserver during the roll (its audit log). */
  audit?: { serve: IdentityCount; executor: IdentityCount };
}

const RC_DIR = '.kubemaint/rc-bench';

function depsFor(kc: KubeConfig): TickDeps {
  const now = () => new Date();
  return {
    cluster: controlCluster(createKubeClient(kc), { namespace: 'kubemaint', now }),
    notifier: { notify: async () => undefined },
    clusterName: 'bench',
    settings: testControlSettings(),
    clock: { now },
    randomBytes: (n) => new Uint8Array(randomBytes(n)),
  };
}

/** 5,000 nodes as a kubelet registers them (status included), every kubelet at `version`. */
async function seed(kc: KubeConfig, nodes: number, version: string, from = 0): Promise<number> {
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'kubemaint' } } }).catch(() => undefined);
  await installKubemaintKinds(kc);
  const started = performance.now();
  let next = from;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < nodes) {
        const i = next++;
        const name = `bench-node-${String(i).padStart(5, '0')}`;
        await core.createNode({
          body: {
            metadata: {
              name,
              labels: {
                'kubernetes.io/hostname': name,
                'kubernetes.io/os': 'linux',
                'topology.kubernetes.io/zone': `bench-${i % 3}`,
              },
            },
            status: {
              conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
              nodeInfo: {
                kubeletVersion: version,
                bootID: `boot-${i}`,
                machineID: `m-${i}`,
                systemUUID: `u-${i}`,
                kernelVersion: '6.8.0',
                osImage: 'Ubuntu 24.04',
                containerRuntimeVersion: 'containerd://1.7.0',
                kubeProxyVersion: version,
                operatingSystem: 'linux',
                architecture: 'amd64',
              },
            },
          },
        });
      }
    }),
  );
  return Math.round((performance.now() - started) / 100) / 10;
}

async function measure(
  counter: ReturnType<typeof countApiRequests>,
  runs: number,
  tick: () => Promise<unknown>,
): Promise<TickSide> {
  await tick(); // warm: connections, JIT
  const times: number[] = [];
  let last: ApiCount = { requests: 0, bytes: 0, lines: [] };
  let requests = 0;
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    counter.reset();
    const t = performance.now();
    await tick();
    times.push(performance.now() - t);
    last = counter.read();
    requests += last.requests;
    bytes += last.bytes;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    requests: requests / runs,
    bytes: Math.round(bytes / runs),
    wallMs: {
      median: Math.round(sorted[Math.floor(runs / 2)] ?? 0),
      max: Math.round(sorted.at(-1) ?? 0),
    },
    lines: last.lines,
  };
}

const same = (a: TickSide, b: TickSide) =>
  a.requests === b.requests && JSON.stringify(a.lines) === JSON.stringify(b.lines);

/**
 * `sim: false` runs kube-apiserver's side alone (issue 34's scale runs: the sim's side of 5,000 nodes
 * with attached kubelets doubles the run and loads the machine the other side is measured on).
 */
export async function runRealVsSimBench(
  nodes = 5_000,
  rollNodes = 50,
  options: { sim?: boolean } = {},
): Promise<RealVsSim> {
  const withSim = options.sim !== false;
  const counter = countApiRequests();
  const say = (line: string) => process.stderr.write(`# ${line}\n`);
  const state = await up({
    version: parseKubernetesVersion(DEFAULT_KUBERNETES_VERSION),
    dir: RC_DIR,
    port: 0,
    fresh: true,
    say,
  });
  const real = new KubeConfig();
  real.loadFromFile(state.kubeconfig);
  const version = (await real.makeApiClient(VersionApi).getCode()).gitVersion;
  // A whole sim (controllers, scheduler, node lifecycle) for the roll, holding what the real
  // control plane holds: no workloads (the fleet scenario's DaemonSets would put a pod on every
  // posted node, which kube-apiserver's side never has), the same 5,000 Node objects posted.
  const sim = withSim ? await startTestSim({ scenario: 'empty', scale: 1, version }) : undefined;
  const simKc = new KubeConfig();
  if (sim) simKc.loadFromFile(sim.kubeconfigPath);
  try {
    const seedS = {
      real: await seed(real, nodes, version),
      ...(sim ? { sim: await seed(simKc, nodes, version) } : {}),
    };
    say(`seeded ${nodes} nodes`);
    const sides = { real: depsFor(real), sim: sim ? depsFor(simKc) : undefined };
    const both = async (runs: number, options: { skewScan?: boolean }) => {
      const realSide = await measure(counter, runs, () => runTick(sides.real, options));
      if (!sim) return { real: realSide };
      const simSide = await measure(counter, runs, () => runTick(sides.sim!, options));
      return { real: realSide, sim: simSide, sameRequests: same(realSide, simSide) };
    };
    const idle = await both(10, {});
    const skewScan = await both(3, { skewScan: true });
    process.env['KUBEMAINT_REAL_KUBECONFIG'] = state.kubeconfig;
    let roll: RealVsSim['roll'];
    let audit: RealVsSim['audit'];
    if (rollNodes > 0) {
      const realRoll = await rollOn({
        adminPath: state.kubeconfig,
        identities: await realCluster(),
        nodes: rollNodes,
        concurrency: 5,
        say: (line) => say(`kube-apiserver: ${line}`),
      });
      const { from, to } = realRoll.span;
      audit = {
        serve: countAudit(state, from, to, SERVE_USER),
        executor: countAudit(state, from, to, EXECUTOR_USER),
      };
      roll = {
        real: realRoll,
        ...(sim
          ? {
              sim: await rollOn({
                adminPath: sim.kubeconfigPath,
                identities: simIdentities(sim.credentials),
                nodes: rollNodes,
                concurrency: 5,
                say: (line) => say(`sim: ${line}`),
              }),
            }
          : {}),
      };
    }
    return {
      nodes,
      version,
      idle,
      skewScan,
      seedS,
      ...(roll ? { roll } : {}),
      ...(audit ? { audit } : {}),
    };
  } finally {
    await sim?.close();
    const debug = process.env['KUBEMAINT_BENCH_DEBUG'];
    if (debug) copyFileSync(join(RC_DIR, 'logs', 'audit.log'), join(debug, 'audit.log'));
    await down(RC_DIR, { purge: true });
    forgetRealCluster();
  }
}

export function realVsSimTable(r: RealVsSim): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const row = (what: string, side: string, t: TickSide) =>
    `| ${what} | ${side} | ${t.requests} | ${kb(t.bytes)} | ${t.wallMs.median} ms | ${t.wallMs.max} ms |`;
  return [
    `${r.nodes.toLocaleString('en')} nodes, kube-apiserver ${r.version} and the embedded sim, counted at the client`,
    '',
    '| tick | server | API requests | response bytes | wall p50 | wall max |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    row('idle', 'kube-apiserver', r.idle.real),
    ...(r.idle.sim ? [row('idle', 'sim', r.idle.sim)] : []),
    row('skew scan', 'kube-apiserver', r.skewScan.real),
    ...(r.skewScan.sim ? [row('skew scan', 'sim', r.skewScan.sim)] : []),
    '',
    ...(r.idle.sim
      ? [
          `Same requests, line for line: idle ${r.idle.sameRequests ? 'yes' : 'NO'}, skew scan ${r.skewScan.sameRequests ? 'yes' : 'NO'}. ` +
            `Seeding ${r.nodes} nodes (16 posts at once): kube-apiserver ${r.seedS.real} s, sim ${r.seedS.sim} s.`,
        ]
      : [`Seeding ${r.nodes} nodes (16 posts at once): kube-apiserver ${r.seedS.real} s.`]),
    ...(r.roll
      ? [
          '',
          `A roll of ${r.roll.real.nodes} attached nodes, ${r.roll.real.concurrency} slots, among the ${r.nodes.toLocaleString('en')} Node objects (real time; a reboot is 10 s down):`,
          '',
          '| server | one node | ideal | roll | ideal ÷ roll | hand-off p50 / p95 / max | Job → host command (median) | host command → done (median) |',
          '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
          ...(['real', 'sim'] as const).flatMap((side) => {
            const x = r.roll![side];
            if (!x) return [];
            return `| ${side === 'real' ? 'kube-apiserver' : 'sim'} | ${x.oneNodeS} s | ${x.idealS} s | ${x.rollS} s | ${x.ofIdeal} | ${x.handOffMs.p50} / ${x.handOffMs.p95} / ${x.handOffMs.max} ms | ${x.executorMs} ms | ${x.hostToDoneMs} ms |`;
          }),
        ]
      : []),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [nodes, roll] = process.argv.slice(2, 4).map(Number);
  const result = await runRealVsSimBench(nodes || undefined, roll ?? undefined, {
    sim: process.argv[4] !== 'real-only',
  });
  process.stdout.write(`${realVsSimTable(result)}\n\n${JSON.stringify(result, null, 2)}\n`);
}
