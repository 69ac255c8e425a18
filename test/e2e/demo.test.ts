/**
 * The demo end to end, as a newcomer runs it: `kubemaint serve` on the embedded demo cluster proposes
 * what the fleet needs, people approve on the CLI (separate processes, like `npx kubemaint approve`),
 * and the real executor runs as each Job — drain, reboot or kubelet upgrade through the simulated
 * host — until every request is done: reboots proven by a new bootID, the upgrade by its version.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { CoreV1Api, KubeConfig, Watch, type V1Node } from '@kubernetes/client-node';
import { MAINTENANCE_CONDITION_TYPES } from '../../src/core/node-conditions.js';
import { runCli, startCli, type LongRunning } from '../support/cli-process.js';
import { waitFor } from '../support/sim.js';

// The demo's own config with 3 slots, so the three nodes go in parallel and the test stays short,
// and a tick schedule that never fires during the test: after the first tick at start, every step
// is driven by serve's watches (a CLI approval, a Job finishing, a node coming back). Only alice
// approves: the CLI acts as its Kubernetes identity (--as impersonates) and serve decides, so the
// approvers are serve's to list (ADR 0012).
const CONFIG = `cluster:
  type: sim
  sim:
    scenario: demo
approval:
  approvers:
    kubernetes:
      users: [alice]
slot:
  concurrency: 3
schedules:
  tick: "0 0 1 1 *"
`;

describe('the demo, end to end on the CLI', { timeout: 300_000 }, () => {
  let dir: string;
  let serve: LongRunning;
  let core: CoreV1Api;
  let opsUrl: string;
  let kubeconfig: string;
  const bootIds = new Map<string, string>();
  /** Each node's maintenance conditions (KEP-5683, ADR 0041) at every change a watch saw. */
  const seen = new Map<string, string[]>();
  let stopWatch: (() => void) | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-demo-'));
    writeFileSync(join(dir, 'kubemaint.yaml'), CONFIG);
    serve = startCli(['serve', '--ops-port', '0', '--ops-host', '127.0.0.1'], { cwd: dir });
    const ready = await serve.waitFor(/serve ready: .*kubeconfig=(\S+) ops=(\S+)/, 60_000);
    const kc = new KubeConfig();
    kubeconfig = ready[1]!;
    kc.loadFromFile(kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
    const request = await new Watch(kc).watch(
      '/api/v1/nodes',
      {},
      (_type: string, node: V1Node) => {
        const types = (node.status?.conditions ?? [])
          .map((c) => c.type)
          .filter((t) => (MAINTENANCE_CONDITION_TYPES as readonly string[]).includes(t))
          .join('+');
        const name = node.metadata!.name!;
        const steps = seen.get(name) ?? [];
        if (steps.at(-1) !== types) seen.set(name, [...steps, types]);
      },
      () => undefined,
    );
    stopWatch = () => request.abort();
    opsUrl = ready[2]!;
    for (const node of (await core.listNode()).items) {
      bootIds.set(node.metadata!.name!, node.status!.nodeInfo!.bootID);
    }
  });

  after(async () => {
    stopWatch?.();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('proposes the two marked nodes and the lagging kubelet, with the commands that answer them', async () => {
    await serve.waitFor(/proposed\s+node-5[^\n]*\n[^\n]*approve r-/, 60_000);
    const out = serve.stdout();
    for (const [node, what] of [
      ['node-2', 'reboot'],
      ['node-5', 'reboot'],
      ['node-4', 'upgrade to v1.31.4'],
    ]) {
      assert.match(out, new RegExp(`proposed\\s+${node} ${what} \\[r-[0-9a-f]{6}\\]`));
    }
  });

  it('a non-approver is refused with exit code 5 and nothing changes', async () => {
    const id = /proposed\s+node-2 reboot \[(r-[0-9a-f]{6})\]/.exec(serve.stdout())![1]!;
    // mallory's decision is recorded in her name; serve refuses it and the CLI says so.
    const refused = await runCli(['approve', id, '--as', 'mallory'], { cwd: dir });
    assert.equal(refused.code, 5, refused.stderr);
    assert.match(refused.stderr, /k8s:mallory is not an approver/);
    const status = await runCli(['status', '--json'], { cwd: dir });
    const requests = (JSON.parse(status.stdout) as { requests: { id: string; state: string }[] })
      .requests;
    assert.equal(requests.find((r) => r.id === id)?.state, 'proposed');
  });

  it('approvals on the CLI carry every request to done, proven by bootID and kubelet version', async () => {
    const ids = [...serve.stdout().matchAll(/approve (r-[0-9a-f]{6})/g)].map((m) => m[1]!);
    assert.equal(new Set(ids).size, 3);
    for (const id of new Set(ids)) {
      const approved = await runCli(['approve', id, '--as', 'alice'], { cwd: dir });
      assert.equal(approved.code, 0, approved.stderr);
      assert.match(approved.stdout, /is approved/);
    }
    await waitFor(
      'three requests done',
      async () => {
        const status = await runCli(['status', '--json'], { cwd: dir });
        const requests = (JSON.parse(status.stdout) as { requests: { state: string }[] }).requests;
        return requests.filter((r) => r.state === 'done').length === 3 ? requests : undefined;
      },
      240_000,
    );
    const nodes = new Map((await core.listNode()).items.map((n) => [n.metadata!.name!, n]));
    for (const name of ['node-2', 'node-5']) {
      const node = nodes.get(name)!;
      assert.notEqual(node.status!.nodeInfo!.bootID, bootIds.get(name), `${name} rebooted`);
      assert.equal(node.metadata!.labels!['kubemaint.io/reboot-required'], undefined);
    }
    assert.equal(nodes.get('node-4')!.status!.nodeInfo!.kubeletVersion, 'v1.31.4');
    assert.equal(
      nodes.get('node-4')!.status!.nodeInfo!.bootID,
      bootIds.get('node-4'),
      'an upgrade is not a reboot',
    );
    for (const node of nodes.values()) assert.notEqual(node.spec?.unschedulable, true);
    // Other tools saw each step on the node (KEP-5683 conditions), in order, and none once done.
    for (const name of ['node-2', 'node-5', 'node-4']) {
      assert.deepEqual(
        seen.get(name)?.filter((types) => types !== ''),
        ['MaintenancePlanned', 'DrainInProgress', 'Drained', 'Drained+MaintenanceInProgress'],
        `${name}: ${JSON.stringify(seen.get(name))}`,
      );
      assert.equal(seen.get(name)?.at(-1), '', `${name} carries none once its request is done`);
      const types = execFileSync('kubectl', [
        '--kubeconfig',
        kubeconfig,
        'get',
        'node',
        name,
        '-o',
        'jsonpath={.status.conditions[*].type}',
      ]).toString();
      assert.match(types, /Ready/);
      assert.doesNotMatch(types, /Maintenance|Drain/, `kubectl get node ${name}: ${types}`);
    }
    const out = serve.stdout();
    for (const kind of ['draining', 'rebooting', 'upgrading', 'back', 'done']) {
      assert.match(out, new RegExp(`\\s${kind}\\s+node-`), `the console shows ${kind}`);
    }
  });

  it('serves /readyz and /metrics with what it saw', async () => {
    const ready = await fetch(`${opsUrl}/readyz`);
    assert.equal(ready.status, 200);
    const metrics = await (await fetch(`${opsUrl}/metrics`)).text();
    assert.match(metrics, /kubemaint_tick_duration_seconds_count \d+/);
    assert.match(metrics, /kubemaint_requests_finished_total\{action="reboot",outcome="done"\} 2/);
  });

  it('stops cleanly on SIGTERM', async () => {
    assert.equal(await serve.stop(), 0);
    assert.match(serve.stdout(), /stopping \(the tick in flight finishes first\)/);
  });
});
