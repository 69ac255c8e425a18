/**
 * A tick that outlives its leadership writes nothing (write-fence.ts, ADR 0060). Serve A reaches
 * the sim through a TCP proxy the test cuts while A's tick is under way: the tick hangs on its
 * read, A's renew deadline passes and it stands by, serve B takes the Lease and proposes a node
 * marked afterwards. When the link heals, A's hung read is retried and its tick goes on with what
 * the cluster says now. Only A auto-approves that node, so an approval of B's proposal is a write
 * by A after it stopped leading: what the fence must hold back. CI saw exactly this on the real
 * control plane (test/real/faults.test.ts, 2026-12-03) before the fence.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { MERGE_PATCH } from '../../../src/adapters/kube/nodes.js';
import { startServe, type RunningServe } from '../../../src/compose/serve.js';
import { configOf } from '../../support/config.js';
import { startTestSim, waitFor, type TestSim } from '../../support/sim.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';

const REBOOT_LABEL = 'kubemaint.io/reboot-required';
/** Only A approves nodes with this label by itself. */
const AUTO = 'fence-test/auto';
const NODE = 'node-3';

describe('a tick that outlives its leadership writes nothing', { timeout: 120_000 }, () => {
  let sim: TestSim;
  let proxy: TcpProxy;
  let a: RunningServe;
  let b: RunningServe | undefined;
  const aSaid: string[] = [];

  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 50 });
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(sim.url).port) });
  });
  after(async () => {
    proxy.heal();
    for (const serve of [a, b]) await serve?.stop().catch(() => undefined);
    await proxy.close();
    await sim.close();
  });

  const start = async (kubeconfig: string, autoApprove: boolean, said?: string[]) =>
    startServe({
      config: configOf({
        cluster: { type: 'kubeconfig', kubeconfig: { path: kubeconfig } },
        kubelet: { enabled: false },
        approval: {
          approvers: { kubernetes: { users: ['alice'] } },
          ...(autoApprove ? { autoApprove: { nodeSelector: `${AUTO}=true` } } : {}),
        },
        schedules: { tick: '* * * * * *' },
        serve: {
          ops: { port: 0 },
          leaderElection: { leaseDuration: '3s', renewDeadline: '2s', retryPeriod: '1s' },
        },
      }),
      listen: { opsPort: 0, slackPort: 0 },
      out: () => undefined,
      log: said
        ? pino({ level: 'warn' }, { write: (line: string) => void said.push(line) })
        : pino({ level: 'silent' }),
    });

  it('A, cut off mid-tick, stands by; B proposes; once healed, A approves nothing', async () => {
    const through = join(sim.dir, 'through-proxy.kubeconfig');
    writeFileSync(
      through,
      readFileSync(sim.kubeconfigPath, 'utf8').replace(sim.url, `https://127.0.0.1:${proxy.port}`),
    );
    a = await start(through, true, aSaid);
    const aLoop = a.loops[0]!;
    await waitFor('A leads', () => aLoop.acting(), 20_000, 20);
    await sim.core.patchNode(
      { name: NODE, body: { metadata: { labels: { [AUTO]: 'true' } } } },
      MERGE_PATCH,
    );

    // A tick under way as the link goes silent: it hangs on its reads, A still leading.
    proxy.cut();
    aLoop.kick();
    await waitFor('A stands by', () => !aLoop.acting(), 10_000, 20);

    b = await start(sim.kubeconfigPath, false);
    const bLoop = b.loops[0]!;
    await waitFor('B leads', () => bLoop.acting(), 20_000, 20);
    await sim.core.patchNode(
      { name: NODE, body: { metadata: { labels: { [REBOOT_LABEL]: 'true' } } } },
      MERGE_PATCH,
    );
    const requests = () => b!.clusters.runtimes[0]!.deps.cluster.listRequests();
    const proposed = await waitFor(
      `B proposes ${NODE}`,
      async () => (await requests()).find((r) => r.node === NODE),
      20_000,
      100,
    );
    assert.equal(proposed.state, 'proposed');

    proxy.heal();
    const stateOf = async () => (await requests()).find((r) => r.id === proposed.id);
    // A's old tick goes on with a fresh read of the requests: it approves B's proposal, or the fence
    // holds that write back and A says so.
    const outcome = await waitFor(
      "A's old tick ends",
      async () => {
        const now = await stateOf();
        if (now?.state !== 'proposed') return `${now?.state}: ${JSON.stringify(now?.approvals)}`;
        return aSaid.some((line) => line.includes('tick stopped: this serve no longer leads'))
          ? 'held back'
          : undefined;
      },
      20_000,
      50,
    );
    assert.equal(outcome, 'held back', 'a write by A after it stopped leading');
    assert.equal(aLoop.acting(), false, 'A stands by');
    // A few more ticks of both: the request is B's to decide, and B approves by people only.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal((await stateOf())?.state, 'proposed');
  });
});
