/**
 * Benchmark: a fleet roll (issue 5, "fleet-roll time against the ideal"). Every node of a fleet sim is
 * marked and auto-approved; the real tick runs every `tickMs` of wall time and the real executor
 * plays each Job's container in process (test/integration/invariants/support.ts), so the sim's
 * drains, reboots and kubelets are real and only process start-up is left out. The ideal is
 * nodes ÷ concurrency × one node's drain + reboot + verify, that one node measured alone on the same
 * sim first. Times are sim time (the sim runs `scale` times faster than the wall).
 * Run: `npx tsx bench/control-fleet-roll.ts [nodes] [concurrency] [tickMs] [scale]`. Prints a markdown table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTick } from '../src/app/control/tick.js';
import { AUTO_APPROVE_RULE } from '../src/app/control/settings.js';
import { ANN_REBOOT_REQUIRED_SINCE, LABEL_REBOOT_REQUIRED } from '../src/core/names.js';
import { createSim, type Sim } from '@kubemaint/kubesim';
import { R } from '@kubemaint/kubesim';
import { testControlDeps, testControlSettings } from '../test/support/control.js';
import {
  executorSettings,
  realJobFor,
  requestOn,
  runJobsInProcess,
} from '../test/support/in-process-executor.js';
import { kubemaintAccessObjects } from '../src/compose/sim-access.js';

export interface RollFigures {
  nodes: number;
  concurrency: number;
  tickMs: number;
  scale: number;
  oneNodeSimS: number;
  idealSimS: number;
  rollSimS: number;
  overIdeal: number;
  rollWallS: number;
  ticks: number;
  apiWrites: number;
}

export async function runFleetRollBench(
  nodes = 50,
  concurrency = 5,
  tickMs = 200,
  scale = 100,
): Promise<RollFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-bench-roll-'));
  const sim = await createSim({
    objects: kubemaintAccessObjects(),
    scenario: 'fleet',
    nodes: nodes + 1,
    podsPerNode: 3,
    scale,
    kubeconfigPath: join(dir, 'kubeconfig'),
    delays: {
      jobPodRunMs: 24 * 3_600_000,
      // The machine goes down 5 sim minutes after `reboot` returns, as a host finishing its
      // shutdown does. It adds the same time to every node, so the ratio to the ideal holds.
      rebootIssueDelayMs: 5 * 60_000,
      rebootDowntimeMs: 60_000,
      heartbeatMs: 60_000,
      nodeMonitorGraceMs: 300_000,
    },
  });
  const exec = executorSettings(concurrency);
  const jobs = runJobsInProcess(sim, exec);
  try {
    const names = sim.store
      .list(R.nodes)
      .map((n) => n.metadata.name ?? '')
      .sort();
    const deps = testControlDeps(sim, {
      settings: testControlSettings({
        lock: { concurrency, pools: {} },
        nodeTimeoutMs: { reboot: 4 * 3_600_000, upgrade: 4 * 3_600_000 },
        autoApprove: [],
        approval: {
          users: ['alice'],
          groups: [],
          autoApproveRules: [AUTO_APPROVE_RULE],
          expiresAfterMs: 72 * 3_600_000,
        },
        jobFor: realJobFor(exec),
      }),
    });
    for (const name of names) mark(sim, name, false);
    const [first, ...rest] = names;
    const one = await roll(sim, deps, [first!], tickMs);
    const writesBefore = sim.admin.audit().length;
    const wall = performance.now();
    const all = await roll(sim, deps, rest, tickMs);
    const rollWallS = Math.round((performance.now() - wall) / 100) / 10;
    const idealSimS = Math.round((nodes / concurrency) * one.simS);
    return {
      nodes,
      concurrency,
      tickMs,
      scale,
      oneNodeSimS: Math.round(one.simS),
      idealSimS,
      rollSimS: Math.round(all.simS),
      overIdeal: Math.round((all.simS / idealSimS) * 100) / 100,
      rollWallS,
      ticks: all.ticks,
      apiWrites:
        sim.admin.audit().filter((e) => e.actor.startsWith('http:')).length -
        sim.admin
          .audit()
          .slice(0, writesBefore)
          .filter((e) => e.actor.startsWith('http:')).length,
    };
  } finally {
    await jobs.stop();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function mark(sim: Sim, node: string, on: boolean): void {
  const since = new Date(sim.clock.now().getTime() - 60_000).toISOString();
  sim.store.mutate(R.nodes, undefined, node, (n) => {
    const labels = { ...n.metadata.labels };
    const annotations = { ...n.metadata.annotations };
    if (on) {
      labels[LABEL_REBOOT_REQUIRED] = 'true';
      annotations[ANN_REBOOT_REQUIRED_SINCE] = since;
    } else delete labels[LABEL_REBOOT_REQUIRED];
    n.metadata.labels = labels;
    n.metadata.annotations = annotations;
  });
}

/** Mark `nodes`, tick every `tickMs` until each request is done; sim seconds from the mark. */
async function roll(
  sim: Sim,
  deps: ReturnType<typeof testControlDeps>,
  nodes: readonly string[],
  tickMs: number,
): Promise<{ simS: number; ticks: number }> {
  for (const node of nodes) mark(sim, node, true);
  const started = sim.clock.now().getTime();
  let ticks = 0;
  for (;;) {
    const t = performance.now();
    await runTick(deps);
    ticks++;
    const states = nodes.map((n) => requestOn(sim, n)?.state);
    const failed = nodes.filter((n) => requestOn(sim, n)?.state === 'failed');
    if (failed.length > 0)
      throw new Error(`roll failed: ${failed.map((n) => requestOn(sim, n)?.failure).join('; ')}`);
    if (states.every((s) => s === 'done')) break;
    const left = tickMs - (performance.now() - t);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
  }
  return { simS: (sim.clock.now().getTime() - started) / 1000, ticks };
}

export function rollTable(r: RollFigures): string {
  return [
    `Fleet roll: ${r.nodes} nodes, concurrency ${r.concurrency}, a tick every ${r.tickMs} ms of wall time, sim scale ${r.scale} (times in sim seconds)`,
    '',
    '| one node alone | ideal (nodes ÷ concurrency × one node) | roll | roll ÷ ideal | wall | ticks | API writes |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${r.oneNodeSimS} s | ${r.idealSimS} s | ${r.rollSimS} s | ${r.overIdeal} | ${r.rollWallS} s | ${r.ticks} | ${r.apiWrites} |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [nodes, concurrency, tickMs, scale] = process.argv.slice(2).map(Number);
  const result = await runFleetRollBench(
    nodes || undefined,
    concurrency || undefined,
    tickMs || undefined,
    scale || undefined,
  );
  process.stdout.write(`${rollTable(result)}\n`);
}
