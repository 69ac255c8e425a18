/**
 * Where the embedded sim's memory goes, per object kind (issue 34): the `fleet` scenario seeded with
 * `podsPerNode` pods a node (controllers off), the heap and RSS after a full GC against the process
 * before the sim started; each kind's stored objects as the heap a list copy of them takes (a copy
 * shares the stored strings, so it is the kind's objects and arrays alone); the audit log as what
 * dropping its entries frees (its entries point at the stored objects, shared). Run it with 1 and
 * with 20 pods a node: the difference is the Deployments' pods and their workload objects.
 * Run: `npx tsx --expose-gc bench/sim-memory.ts [nodes] [podsPerNode]`. Prints one JSON document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSim, R } from '@kubemaint/kubesim';
import { kubemaintAccessObjects } from '../src/compose/sim-access.js';

export interface SimMemory {
  nodes: number;
  podsPerNode: number;
  seedS: number;
  /** Heap and RSS the seeded sim added to the process, after a full GC. */
  seededHeapMiB: number;
  seededRssMiB: number;
  kinds: Record<string, { count: number; objectsMiB: number }>;
  audit: { entries: number; MiB: number };
}

const mib = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;

function collect(): NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc: the figures are after a full collection');
  gc();
  gc();
  return process.memoryUsage();
}

export async function measureSimMemory(nodes = 5_000, podsPerNode = 20): Promise<SimMemory> {
  const before = collect();
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-sim-memory-'));
  const started = performance.now();
  const sim = await createSim({
    objects: kubemaintAccessObjects(),
    scenario: 'fleet',
    nodes,
    podsPerNode,
    controllers: false,
    kubeconfigPath: join(dir, 'kubeconfig'),
  });
  const seedS = Math.round((performance.now() - started) / 100) / 10;
  try {
    const seeded = collect();
    const kinds: SimMemory['kinds'] = {};
    for (const resource of Object.values(R)) {
      const without = collect().heapUsed;
      let copies: unknown[] | undefined = sim.store.list(resource);
      if (copies.length > 0)
        kinds[resource] = { count: copies.length, objectsMiB: mib(collect().heapUsed - without) };
      copies = undefined;
    }
    const audit = sim.admin.audit() as unknown[];
    const entries = audit.length;
    const withAudit = collect().heapUsed;
    audit.length = 0; // the last thing measured: the log is gone from here on
    return {
      nodes,
      podsPerNode,
      seedS,
      seededHeapMiB: mib(seeded.heapUsed - before.heapUsed),
      seededRssMiB: mib(seeded.rss - before.rss),
      kinds,
      audit: { entries, MiB: mib(withAudit - collect().heapUsed) },
    };
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [nodes, perNode] = process.argv.slice(2).map(Number);
  const result = await measureSimMemory(nodes || undefined, perNode || undefined);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
