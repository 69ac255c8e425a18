/**
 * Slot hand-off latency in `serve`: with one slot and N approved reboots, how long from one request's
 * `done` (its slot released) until the next request is dispatched (`running`, its Job created). The
 * tick schedule never fires during the run, so every hand-off is driven by serve's watches. Runs the
 * real `kubemaint serve` process on a fleet sim and the real executor in each Job.
 * `npx tsx bench/serve-handoff.ts [nodes]`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approveRequest, listRequests } from '../src/app/control/commands.js';
import { openControl } from '../src/compose.js';
import { parseConfig } from '../src/config/parse.js';
import { silentLogger } from '../src/log.js';
import { startCli } from '../test/support/cli-process.js';

export async function runHandoffBench(nodes = 6): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-handoff-'));
  const yaml = `cluster: {type: sim, sim: {scenario: fleet, nodes: ${nodes}}}
approval: {approvers: {kubernetes: {users: [alice]}}}
slot: {concurrency: 1}
# Reboots only: a kubelet upgrade on the same node would come first and hide its reboot's request.
kubelet: {enabled: false}
schedules: {tick: "0 0 1 1 *", skewScan: "0 0 1 1 *"}
`;
  writeFileSync(join(dir, 'kubemaint.yaml'), yaml);
  const serve = startCli(['serve', '--ops-port', '0', '--ops-host', '127.0.0.1'], { cwd: dir });
  try {
    const ready = await serve.waitFor(/serve ready: .*kubeconfig=(\S+)/, 120_000);
    const parsed = parseConfig(yaml, 'bench', {});
    if (!parsed.ok) throw new Error('bench config');
    const control = await openControl(parsed.config, {
      log: silentLogger(),
      kubeconfigPath: ready[1]!,
    });
    const { deps } = control;
    for (const node of await deps.cluster.listNodes()) {
      await deps.cluster.patchNode(node.name, {
        labels: { 'kubemaint.io/reboot-required': 'true' },
      });
    }
    const alice = { kind: 'person', id: 'k8s:alice' } as const;
    let requests = await waitUntil(async () => {
      const all = await listRequests(deps);
      return all.filter((r) => r.state === 'proposed').length === nodes ? all : undefined;
    }, 120_000);
    for (const r of requests) await approveRequest(deps, r.id, alice);
    const started = Date.now();
    requests = await waitUntil(async () => {
      const all = await listRequests(deps);
      return all.every((r) => r.state === 'done' || r.state === 'failed') ? all : undefined;
    }, nodes * 120_000);
    const wall = Date.now() - started;
    const at = (r: (typeof requests)[number], state: string) =>
      Date.parse(r.history.find((h) => h.to === state)?.at ?? '');
    const byStart = [...requests].sort((a, b) => at(a, 'running') - at(b, 'running'));
    const handoffs: number[] = [];
    for (let i = 1; i < byStart.length; i++) {
      handoffs.push(at(byStart[i]!, 'running') - at(byStart[i - 1]!, 'done'));
    }
    handoffs.sort((a, b) => a - b);
    const pct = (p: number) =>
      handoffs[Math.min(handoffs.length - 1, Math.floor((p / 100) * handoffs.length))];
    await control.close();
    return {
      nodes,
      done: requests.filter((r) => r.state === 'done').length,
      handoffs: handoffs.length,
      handoffMs: { p50: pct(50), p95: pct(95), max: handoffs.at(-1) },
      wallSeconds: Math.round(wall / 1000),
    };
  } finally {
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function waitUntil<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runHandoffBench(Number(process.argv[2] ?? 6));
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
