/**
 * Benchmark: draining a node with 110 pods with `kubemaint drain` against the installed `kubectl
 * drain`, on twin nodes of the same sim in the same run (the `fleet` scenario: one DaemonSet pod and
 * 109 Deployment pods per twin, in PDB-guarded groups of ten with maxUnavailable 1, plus empty spare
 * nodes where the replacements go). Both run as processes (kubemaint as the image runs it: the
 * esbuild bundle), one after the other, and the wall time of each is measured.
 * Run: `npx tsx bench/drain-vs-kubectl.ts [scale] [kubemaint-first]`. Prints one JSON document; `ratio` < 1 means
 * kubemaint was faster.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { cliBundleOptions } from '../scripts/cli-bundle.mjs';
import { createSim } from '@kubemaint/kubesim';
import { applyNodeStatus, initialNodeInfo } from '@kubemaint/kubesim/testing';
import { node as nodeObject } from '@kubemaint/kubesim';
import { R } from '@kubemaint/kubesim';
import { kubemaintAccessObjects } from '../src/compose/sim-access.js';

const ROOT = resolve(import.meta.dirname, '..');

export interface DrainBenchResult {
  podsPerNode: number;
  scale: number;
  kubectl: { node: string; ms: number; exitCode: number | null; version: string };
  kubemaint: { node: string; ms: number; exitCode: number | null };
  /** kubemaint time / kubectl time. */
  ratio: number;
}

function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; code: number | null; out: string }> {
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => done({ ms: Math.round(performance.now() - started), code, out }));
  });
}

export async function runDrainBench(scale = 20, kubemaintFirst = false): Promise<DrainBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-drain-bench-'));
  const bundle = join(dir, 'cli.mjs');
  await build(cliBundleOptions({ root: ROOT, outdir: dir, target: 'node24' }));
  const sim = await createSim({
    objects: kubemaintAccessObjects(),
    scenario: 'fleet',
    nodes: 2,
    podsPerNode: 110,
    scale,
    kubeconfigPath: join(dir, 'sim.kubeconfig'),
  });
  try {
    const [twinA, twinB] = sim.store
      .list(R.nodes)
      .map((n) => n.metadata.name ?? '')
      .sort();
    // Room for the 218 replacements: four empty nodes.
    for (let i = 1; i <= 4; i++) {
      const spare = nodeObject({
        name: `spare-${i}`,
        pool: 'general',
        zone: 'eu-west-1a',
        kubeletVersion: 'v1.31.4',
      });
      applyNodeStatus(spare, {
        info: initialNodeInfo(spare, 'v1.31.4'),
        ip: `10.9.0.${i}`,
        ready: true,
        nowIso: sim.clock.now().toISOString(),
      });
      sim.store.create(R.nodes, spare);
    }
    const env = {
      ...process.env,
      KUBECONFIG: sim.kubeconfigPath,
      KUBECACHEDIR: join(dir, 'kube-cache'),
    };
    const version = spawnSync('kubectl', ['version', '--client', '-o', 'json'], {
      encoding: 'utf8',
    }).stdout;
    const drainKubectl = () =>
      run(
        [
          'kubectl',
          'drain',
          twinB!,
          '--ignore-daemonsets',
          '--delete-emptydir-data',
          '--timeout=15m',
        ],
        env,
      );
    const drainKubemaint = () =>
      run(
        [
          process.execPath,
          bundle,
          'drain',
          twinA!,
          // kubemaint's commands take their cluster from the config or --kubeconfig, not $KUBECONFIG.
          '--kubeconfig',
          sim.kubeconfigPath,
          '--delete-emptydir-data',
          '--timeout',
          '15m',
        ],
        env,
      );
    // The second drain finds the spares fuller: run both orders to see that it does not decide it.
    const first = kubemaintFirst ? await drainKubemaint() : undefined;
    const kubectl = await drainKubectl();
    const kubemaintRun = first ?? (await drainKubemaint());
    if (kubectl.code !== 0) process.stderr.write(kubectl.out.slice(-2_000));
    if (kubemaintRun.code !== 0) process.stderr.write(kubemaintRun.out.slice(-2_000));
    // A drain that failed at once is no figure: say so instead of printing a ratio of 0.02.
    for (const [who, result] of [
      ['kubectl', kubectl],
      ['kubemaint', kubemaintRun],
    ] as const)
      if (result.code !== 0) throw new Error(`${who} drain failed (exit ${result.code})`);
    return {
      podsPerNode: 110,
      scale,
      kubectl: {
        node: twinB!,
        ms: kubectl.ms,
        exitCode: kubectl.code,
        version:
          (JSON.parse(version || '{}') as { clientVersion?: { gitVersion?: string } }).clientVersion
            ?.gitVersion ?? '?',
      },
      kubemaint: { node: twinA!, ms: kubemaintRun.ms, exitCode: kubemaintRun.code },
      ratio: Math.round((kubemaintRun.ms / kubectl.ms) * 100) / 100,
    };
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const scale = Number(process.argv[2] ?? 20);
  const kubemaintFirst = process.argv[3] === 'kubemaint-first';
  process.stdout.write(`${JSON.stringify(await runDrainBench(scale, kubemaintFirst), null, 2)}\n`);
}
