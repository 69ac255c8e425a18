/**
 * Benchmark: the sim holding 5,000 nodes and 100,000 pods (the `fleet` scenario, seeded running;
 * controllers and kubelets off so the figures are the store's and the API server's), listing the
 * 5,000 nodes in pages of 500 through @kubernetes/client-node over TLS, and memory (RSS, heap).
 * Run: `npx tsx --expose-gc bench/sim-scale.ts [nodes] [podsPerNode]`. Prints one JSON document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createSim } from '@kubemaint/kubesim';
import { kubemaintAccessObjects } from '../src/compose/sim-access.js';

export interface SimScaleResult {
  nodes: number;
  pods: number;
  seedMs: number;
  listNodesPages: number;
  listNodesMs: { runs: number[]; median: number };
  listPodsPagedMs: number;
  memory: { rssMiB: number; heapUsedMiB: number; baselineRssMiB: number };
}

const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

export async function runSimScaleBench(nodes = 5_000, podsPerNode = 20): Promise<SimScaleResult> {
  gc();
  const baseline = process.memoryUsage().rss;
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-bench-'));
  const started = performance.now();
  const sim = await createSim({
    objects: kubemaintAccessObjects(),
    scenario: 'fleet',
    nodes,
    podsPerNode,
    controllers: false,
    kubeconfigPath: join(dir, 'kubeconfig'),
  });
  const seedMs = Math.round(performance.now() - started);
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const listAllNodes = async (): Promise<{ count: number; pages: number }> => {
      let token: string | undefined;
      let count = 0;
      let pages = 0;
      do {
        const page = await core.listNode({ limit: 500, ...(token ? { _continue: token } : {}) });
        count += page.items.length;
        pages++;
        token = page.metadata?._continue;
      } while (token);
      return { count, pages };
    };
    await listAllNodes(); // warm-up: TLS session, JIT
    const runs: number[] = [];
    let pages = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const result = await listAllNodes();
      runs.push(Math.round(performance.now() - t));
      if (result.count !== nodes)
        throw new Error(`listed ${result.count} nodes, expected ${nodes}`);
      pages = result.pages;
    }
    const sorted = [...runs].sort((a, b) => a - b);
    let podCount = 0;
    const tPods = performance.now();
    let token: string | undefined;
    do {
      const page = await core.listPodForAllNamespaces({
        limit: 500,
        ...(token ? { _continue: token } : {}),
      });
      podCount += page.items.length;
      token = page.metadata?._continue;
    } while (token);
    const listPodsPagedMs = Math.round(performance.now() - tPods);
    gc();
    const memory = process.memoryUsage();
    return {
      nodes,
      pods: podCount,
      seedMs,
      listNodesPages: pages,
      listNodesMs: { runs, median: sorted[Math.floor(sorted.length / 2)] ?? 0 },
      listPodsPagedMs,
      memory: {
        rssMiB: mib(memory.rss),
        heapUsedMiB: mib(memory.heapUsed),
        baselineRssMiB: mib(baseline),
      },
    };
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [nodes, perNode] = process.argv.slice(2).map(Number);
  const result = await runSimScaleBench(nodes || undefined, perNode || undefined);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
