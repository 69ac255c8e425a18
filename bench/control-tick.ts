/**
 * Benchmark: what one control-plane tick costs on a 5,000-node cluster (issue 5, "a tick with nothing
 * to do makes at most 3 API requests and moves under 100 KB"), and what a skew scan costs. The sim's
 * store and API server run without controllers (the figures are the tick's), and the API server is
 * instrumented: every request counted, request and response bodies and TLS bytes on the wire summed.
 * Idle: no reboot marks, no requests. Skew scan: the full paginated node list plus `GET /version`, on
 * a fleet whose kubelets are all current (nothing to propose, so the figure is the read).
 * Run: `npx tsx --expose-gc bench/control-tick.ts [nodes]`. Prints a markdown table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTick } from '../src/app/control/tick.js';
import { startApiServer, writeKubeconfig } from '@kubemaint/kubesim/api';
import { SCENARIOS } from '@kubemaint/kubesim';
import { createStore } from '@kubemaint/kubesim';
import { R } from '@kubemaint/kubesim';
import { LABEL_REBOOT_REQUIRED } from '../src/core/names.js';
import { installKubemaintKinds } from '../src/compose/sim-kinds.js';
import { KubeConfig } from '@kubernetes/client-node';
import { testControlDeps } from '../test/support/control.js';

const VERSION = 'v1.31.4';

export interface TickFigures {
  what: string;
  runs: number;
  requests: number;
  bodyBytes: number;
  wireBytes: number;
  wallMs: { median: number; max: number };
  peakRssDeltaMiB: number;
  heapDeltaMiB: number;
}

const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const size = (chunk: unknown): number =>
  typeof chunk === 'string'
    ? Buffer.byteLength(chunk)
    : ((chunk as Buffer | undefined)?.length ?? 0);

export async function runControlTickBench(nodes = 5_000): Promise<TickFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-bench-tick-'));
  const store = createStore({ now: () => new Date() });
  SCENARIOS.fleet.seed(store, { version: VERSION, now: new Date(), nodes, podsPerNode: 2 });
  // Idle: nobody marked a node, every kubelet is current.
  for (const node of store.list(R.nodes)) {
    store.mutate(R.nodes, undefined, node.metadata.name ?? '', (n) => {
      delete n.metadata.labels?.[LABEL_REBOOT_REQUIRED];
      (n.status as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion = VERSION;
    });
  }
  const api = await startApiServer({
    store,
    now: () => new Date(),
    version: { major: '1', minor: '31', gitVersion: VERSION },
  });
  let requests = 0;
  let bodyBytes = 0;
  const sockets: TLSSocket[] = [];
  api.server.on('secureConnection', (socket: TLSSocket) => void sockets.push(socket));
  api.server.prependListener('request', (req, res) => {
    requests++;
    req.on('data', (chunk: Buffer) => void (bodyBytes += chunk.length));
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.write = ((...args: unknown[]) => (
      (bodyBytes += size(args[0])),
      write(...args)
    )) as typeof res.write;
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] !== 'function') bodyBytes += size(args[0]);
      return end(...args);
    }) as typeof res.end;
  });
  const wire = () => sockets.reduce((sum, s) => sum + s.bytesRead + s.bytesWritten, 0);
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, { url: api.url, caPem: api.caPem, token: api.token });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  await installKubemaintKinds(kc);
  const deps = testControlDeps({ kubeconfigPath, clock: { now: () => new Date() } });
  try {
    await runTick(deps); // warm-up: TLS session, JIT
    return [
      await measure('idle tick', 20, () => runTick(deps)),
      await measure('skew scan', 5, () => runTick(deps, { skewScan: true })),
    ];
  } finally {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }

  async function measure(
    what: string,
    runs: number,
    tick: () => Promise<unknown>,
  ): Promise<TickFigures> {
    const times: number[] = [];
    let peak = 0;
    let heap = 0;
    const [r0, b0, w0] = [requests, bodyBytes, wire()];
    for (let i = 0; i < runs; i++) {
      gc();
      const rss = process.memoryUsage().rss;
      const heapBefore = process.memoryUsage().heapUsed;
      let top = rss;
      const sampler = setInterval(() => (top = Math.max(top, process.memoryUsage().rss)), 2);
      const t = performance.now();
      await tick();
      times.push(performance.now() - t);
      clearInterval(sampler);
      top = Math.max(top, process.memoryUsage().rss);
      peak = Math.max(peak, top - rss);
      heap = Math.max(heap, process.memoryUsage().heapUsed - heapBefore);
    }
    const sorted = [...times].sort((a, b) => a - b);
    return {
      what,
      runs,
      requests: (requests - r0) / runs,
      bodyBytes: Math.round((bodyBytes - b0) / runs),
      wireBytes: Math.round((wire() - w0) / runs),
      wallMs: {
        median: Math.round(sorted[Math.floor(runs / 2)] ?? 0),
        max: Math.round(sorted.at(-1) ?? 0),
      },
      peakRssDeltaMiB: mib(peak),
      heapDeltaMiB: mib(heap),
    };
  }
}

export function tickTable(nodes: number, rows: readonly TickFigures[]): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  return [
    `Control-plane tick on a ${nodes.toLocaleString('en')}-node sim (per tick, averaged over the runs)`,
    '',
    '| tick | runs | API requests | bodies | on the wire (TLS) | wall p50 | wall max | peak RSS Δ | heap Δ |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.what} | ${r.runs} | ${r.requests} | ${kb(r.bodyBytes)} | ${kb(r.wireBytes)} | ${r.wallMs.median} ms | ${r.wallMs.max} ms | ${r.peakRssDeltaMiB} MiB | ${r.heapDeltaMiB} MiB |`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const nodes = Number(process.argv[2]) || 5_000;
  const rows = await runControlTickBench(nodes);
  process.stdout.write(`${tickTable(nodes, rows)}\n`);
}
