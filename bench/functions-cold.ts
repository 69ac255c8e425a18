/**
 * Benchmark: the cold-import time of each Lambda bundle that `npm run package` built (a fresh Node
 * process doing `await import(bundle)`, which is what a Lambda cold start pays before the handler
 * runs), against a bare `node -e 0`, as the median of N runs each, interleaved so machine load hits
 * every variant alike. Run: `npm run package && npx tsx bench/functions-cold.ts [runs]`.
 * Prints a markdown table (and the raw figures as JSON on stderr).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface ColdImportRow {
  name: string;
  bundleBytes: number;
  medianMs: number;
  /** CPU time (user + system) of the child, median: steadier than wall time on a busy machine. */
  medianCpuMs: number;
  /** The median minus the bare-node baseline: what the bundle itself costs. */
  overBaselineMs: number;
  runs: number[];
}

const FUNCTIONS = ['tick', 'slack'] as const;
const bundlePath = (name: string): string =>
  resolve('.serverless', 'bundles', name, 'functions', `${name}.mjs`);

/** Appended to each child's script: it reports its own CPU time on stdout. */
const REPORT_CPU =
  ';{const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000));}';

function timeNode(args: string[]): { wallMs: number; cpuMs: number } {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    env: { ...process.env, AWS_LAMBDA_FUNCTION_NAME: 'kubemaint-bench' },
  });
  const elapsed = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`node ${args.join(' ')} failed: ${result.stderr.trim()}`);
  }
  return { wallMs: elapsed, cpuMs: Number(result.stdout) };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const round = (ms: number): number => Math.round(ms * 10) / 10;

export function runFunctionsColdBench(runs = 15): ColdImportRow[] {
  const missing = FUNCTIONS.filter((name) => !existsSync(bundlePath(name)));
  if (missing.length > 0) {
    throw new Error(
      `no bundle for ${missing.join(', ')} under .serverless/bundles: run \`npm run package\` first`,
    );
  }
  const variants = [
    { name: 'bare `node -e 0`', args: ['-e', `0${REPORT_CPU}`], bytes: 0 },
    ...FUNCTIONS.map((name) => ({
      name,
      args: [
        '--input-type=module',
        '-e',
        `await import(${JSON.stringify(bundlePath(name))})${REPORT_CPU}`,
      ],
      bytes: statSync(bundlePath(name)).size,
    })),
  ];
  const times = variants.map(() => [] as number[]);
  const cpu = variants.map(() => [] as number[]);
  for (const variant of variants) timeNode(variant.args); // warm the file cache once
  for (let i = 0; i < runs; i++) {
    variants.forEach((variant, v) => {
      const { wallMs, cpuMs } = timeNode(variant.args);
      times[v]!.push(wallMs);
      cpu[v]!.push(cpuMs);
    });
  }
  const baseline = median(times[0]!);
  return variants.map((variant, v) => ({
    name: variant.name,
    bundleBytes: variant.bytes,
    medianMs: round(median(times[v]!)),
    medianCpuMs: round(median(cpu[v]!)),
    overBaselineMs: round(median(times[v]!) - baseline),
    runs: times[v]!.map(round),
  }));
}

export function markdownTable(rows: readonly ColdImportRow[], runs: number): string {
  const lines = [
    `| function | bundle | cold import (wall), median of ${runs} | over bare node | CPU time, median |`,
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.bundleBytes ? `${(r.bundleBytes / 1024 / 1024).toFixed(2)} MiB` : '-'} | ` +
        `${r.medianMs} ms | ${r.bundleBytes ? `+${r.overBaselineMs} ms` : '-'} | ${r.medianCpuMs} ms |`,
    ),
  ];
  return lines.join('\n');
}

if (import.meta.url === `file://${resolve(process.argv[1] ?? '')}`) {
  const runs = Number(process.argv[2] ?? 15);
  if (!Number.isInteger(runs) || runs < 1) {
    process.stderr.write(`runs must be a positive integer, got ${process.argv[2]}\n`);
    process.exit(2);
  }
  const rows = runFunctionsColdBench(runs);
  process.stderr.write(`${JSON.stringify(rows)}\n`);
  process.stdout.write(`${markdownTable(rows, runs)}\n`);
  process.stdout.write(`\nnode ${process.version}, ${join(process.cwd(), '.serverless')}\n`);
}
