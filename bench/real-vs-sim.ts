/**
 * Benchmark: the same ticks on kube-apiserver and on the embedded sim, side by side in one run (issue
 * 20, the ground truth): 5,000 Node objects on each (posted the same way, every kubelet current),
 * then the idle tick and the skew scan, counted at the client (bench/api-counter.ts): API requests,
 * response bytes, wall time. The request lines must match; a figure only the sim flatters shows as a
 * difference in the table. The real control plane is `npm run real-cluster`'s (built once, cached),
 * in a folder of its own (`.kubemaint/rc-bench`), started fresh and stopped afterwards.
 * Run: `npx tsx bench/real-vs-sim.ts [nodes]`. Prints a markdown table.
 */
import { CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
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
import { startSimApi } from '@kubemaint/kubesim/testing';
import { countApiRequests, type ApiCount } from './api-counter.js';

export interface TickSide {
  requests: number;
  bytes: number;
  wallMs: { median: number; max: number };
  lines: string[];
}

export interface RealVsSim {
  nodes: number;
  version: string;
  idle: { real: TickSide; sim: TickSide; sameRequests: boolean };
  skewScan: { real: TickSide; sim: TickSide; sameRequests: boolean };
  /** Seeding the nodes (posts, 16 at once): how the two servers take writes. */
  seedS: { real: number; sim: number };
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
async function seed(kc: KubeConfig, nodes: number, version: string): Promise<number> {
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'kubemaint' } } }).catch(() => undefined);
  await installKubemaintKinds(kc);
  const started = performance.now();
  let next = 0;
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

export async function runRealVsSimBench(nodes = 5_000): Promise<RealVsSim> {
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
  const [, major = '1', minor = '0'] = /^v(\d+)\.(\d+)/.exec(version) ?? [];
  const sim = await startSimApi({ version: { major, minor, gitVersion: version } });
  try {
    const seedS = {
      real: await seed(real, nodes, version),
      sim: await seed(sim.kc, nodes, version),
    };
    const sides = { real: depsFor(real), sim: depsFor(sim.kc) };
    const idle = {
      real: await measure(counter, 10, () => runTick(sides.real)),
      sim: await measure(counter, 10, () => runTick(sides.sim)),
    };
    const skewScan = {
      real: await measure(counter, 3, () => runTick(sides.real, { skewScan: true })),
      sim: await measure(counter, 3, () => runTick(sides.sim, { skewScan: true })),
    };
    return {
      nodes,
      version,
      idle: { ...idle, sameRequests: same(idle.real, idle.sim) },
      skewScan: { ...skewScan, sameRequests: same(skewScan.real, skewScan.sim) },
      seedS,
    };
  } finally {
    await sim.close();
    await down(RC_DIR, { purge: true });
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
    row('idle', 'sim', r.idle.sim),
    row('skew scan', 'kube-apiserver', r.skewScan.real),
    row('skew scan', 'sim', r.skewScan.sim),
    '',
    `Same requests, line for line: idle ${r.idle.sameRequests ? 'yes' : 'NO'}, skew scan ${r.skewScan.sameRequests ? 'yes' : 'NO'}. ` +
      `Seeding ${r.nodes} nodes (16 posts at once): kube-apiserver ${r.seedS.real} s, sim ${r.seedS.sim} s.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const result = await runRealVsSimBench(Number(process.argv[2]) || undefined);
  process.stdout.write(`${realVsSimTable(result)}\n\n${JSON.stringify(result, null, 2)}\n`);
}
