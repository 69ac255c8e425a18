/**
 * Benchmark (issue 34): the roll of bench/real-vs-sim.ts on kube-apiserver at several fleet sizes,
 * kube-apiserver's side alone (a fresh control plane per size): 50 attached nodes roll among 500,
 * 1,000 and 5,000 Node objects. For each size: ideal ÷ roll, hand-off p50/p95, serve's CPU seconds
 * per node rolled and peak RSS, and what serve asked kube-apiserver per node rolled (its audit log:
 * requests, and the pages of whole-fleet node lists), which do not depend on the machine's load.
 * Run: `npx tsx bench/scale.ts [sizes…]`. Prints a markdown table and the JSON.
 */
import { runRealVsSimBench, type RealVsSim } from './real-vs-sim.js';

export interface ScaleRow {
  nodes: number;
  result: RealVsSim;
  /** The 1-minute load average sampled every 5 s while this size ran. */
  load: { median: number; min: number; max: number };
}

export const SIZES = [500, 1_000, 5_000];
const ROLL = 50;

export async function runScaleBench(
  sizes: readonly number[] = SIZES,
  say: (line: string) => void = (line) => process.stderr.write(`# ${line}\n`),
): Promise<ScaleRow[]> {
  const { loadavg } = await import('node:os');
  const rows: ScaleRow[] = [];
  for (const nodes of sizes) {
    say(`${nodes} nodes`);
    const samples = [loadavg()[0]!];
    const timer = setInterval(() => samples.push(loadavg()[0]!), 5_000);
    const result = await runRealVsSimBench(nodes, ROLL, { sim: false }).finally(() =>
      clearInterval(timer),
    );
    const sorted = samples.sort((a, b) => a - b);
    const r = (n: number) => Math.round(n * 10) / 10;
    // Each size as it ends, so a later size that fails does not take the earlier ones with it.
    say(
      `${nodes} nodes: ${JSON.stringify({ roll: result.roll?.real, audit: result.audit, idle: result.idle.real.bytes })}`,
    );
    rows.push({
      nodes,
      result,
      load: {
        median: r(sorted[Math.floor(sorted.length / 2)]!),
        min: r(sorted[0]!),
        max: r(sorted.at(-1)!),
      },
    });
  }
  return rows;
}

export function scaleTable(rows: readonly ScaleRow[]): string {
  const base = rows[0];
  const times = (value: number, of: number | undefined) =>
    of ? ` (${(value / of).toFixed(2)}×)` : '';
  return [
    `A roll of ${ROLL} attached nodes, 5 slots, among the fleet's Node objects, kube-apiserver's side alone; serve's requests from kube-apiserver's audit log, per node rolled.`,
    '',
    '| nodes | ideal ÷ roll | hand-off p50 / p95 / max | Job → host command (median) | serve CPU per node rolled | serve peak RSS (when ready) | serve requests per node | whole-fleet node list pages per node | executor requests per node | idle tick: requests, bytes read | serve ticks in the roll: count, mean, p99 | serve watches open (reopened in the roll) | load (median, min–max) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows.map(({ nodes, result, load }) => {
      const roll = result.roll!.real;
      const audit = result.audit!;
      const baseRoll = base?.result.roll?.real;
      const idle = result.idle.real;
      const baseIdle = base?.result.idle.real;
      const { ticks } = roll;
      return `| ${nodes.toLocaleString('en')} | ${roll.ofIdeal} | ${roll.handOffMs.p50} / ${roll.handOffMs.p95} / ${roll.handOffMs.max} ms | ${roll.executorMs} ms | ${roll.serveCpuPerNodeS} s${times(roll.serveCpuPerNodeS, baseRoll?.serveCpuPerNodeS)} | ${roll.servePeakRssMiB} MiB (${roll.serveReadyRssMiB}) | ${(audit.serve.requests / roll.nodes).toFixed(1)} | ${(audit.serve.fullNodeListPages / roll.nodes).toFixed(2)} | ${(audit.executor.requests / roll.nodes).toFixed(1)} | ${idle.requests}, ${(idle.bytes / 1024).toFixed(1)} KB${times(idle.bytes, baseIdle?.bytes)} | ${ticks.count}, ${ticks.meanMs} ms, ≤ ${ticks.p99AtMostS} s | ${audit.serve.watchesOpen} (${audit.serve.watchesEnded}) | ${load.median} (${load.min}–${load.max}) |`;
    }),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const sizes = process.argv.slice(2).map(Number).filter(Boolean);
  const rows = await runScaleBench(sizes.length > 0 ? sizes : SIZES);
  process.stdout.write(`${scaleTable(rows)}\n\n${JSON.stringify(rows, null, 2)}\n`);
}
