/**
 * Two `kubemaint serve` replicas on one sim (issue 32, ADR 0046), each as its own Kubernetes user
 * (serve-a, serve-b: the audit log says who wrote what) with the default election timings (lease
 * 15 s, renew deadline 10 s, retry 2 s): the first leads, the second stands by; the leader is
 * SIGKILLed in the middle of a roll; the standby takes the Lease once it expired and the roll ends
 * with one reboot per node. From the audit log: every write either serve made, other than the
 * election Lease itself, was made while the Lease named it, so no two acted at once, and the
 * standby made none while the leader held the Lease.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { R, type AuditEntry } from '@kubemaint/kubesim';
import { simIdentities } from '../support/sim-identities.js';
import { waitFor } from '../support/sim.js';
import {
  answerUntilDone,
  markForReboot,
  spawnServe,
  statesOf,
  type ServeCluster,
  type SpawnedServe,
  startServeCluster,
  NAMESPACE,
} from './serve-support.js';
import { clearMarks, requestOf } from './support.js';

const LEASE = 'kubemaint-serve-leader';
const LEASE_MS = 15_000;
const RETRY_MS = 2_000;
const TICK_MS = 2_000;
/** How many nodes roll; the fleet scenario names them (fleet-general-0001, …). */
const NODE_COUNT = 2;
let NODES: string[] = [];

describe(
  'serve with two replicas: the standby takes over from a killed leader',
  { timeout: 1_800_000 },
  () => {
    let cluster: ServeCluster;
    const serves: SpawnedServe[] = [];
    after(async () => {
      await Promise.all(serves.map((s) => s.stop('SIGKILL')));
      await cluster?.close();
    });

    const holder = (): string =>
      (
        cluster.sim.store.get(R.leases, NAMESPACE, LEASE)?.spec as
          { holderIdentity?: string } | undefined
      )?.holderIdentity ?? '';

    it('hands over within the lease duration and a tick, and no two ever act at once', async () => {
      const started = performance.now();
      /** Progress on stderr: on a loaded machine, where a step waits is worth seeing. */
      const step = (what: string) =>
        process.stderr.write(`# ${((performance.now() - started) / 1000).toFixed(1)} s: ${what}\n`);
      cluster = await startServeCluster({
        nodes: NODE_COUNT,
        concurrency: 1,
        tickSeconds: 2,
        leaderElection: true,
      });
      const { sim } = cluster;
      // Unmarked to begin with: the roll is the one marked below.
      NODES = clearMarks(sim);
      const ids = simIdentities(sim.credentials);
      const replica = (name: string) =>
        spawnServe(cluster, name, {
          // Also kubemaint:control-plane: admission lets only the control plane write a status.
          kubeconfig: ids.userKubeconfig(name, ['system:masters', 'kubemaint:control-plane']),
          env: { POD_NAME: name },
        });
      const a = replica('serve-a');
      serves.push(a);
      await a.ready();
      step(`serve-a ready`);
      await waitFor('serve-a leads', () => holder().startsWith('serve-a_'), 30_000);
      step(`serve-a leads`);
      const b = replica('serve-b');
      serves.push(b);
      await b.ready();
      step(`serve-b ready`);
      assert.match(
        b.stdout(),
        /leader election: lease kubemaint\/kubemaint-serve-leader as serve-b_/,
      );

      markForReboot(sim, NODES);
      const roll = answerUntilDone(sim, NODES, { timeoutMs: 400_000 });
      // Mid-roll: a node's executor is at work (the leader dispatched it), the other waits.
      await waitFor(
        'a request running',
        () =>
          NODES.some((n) => ['running', 'verifying'].includes(requestOf(sim, n)?.state ?? ''))
            ? true
            : (step(`waiting: ${statesOf(sim, NODES).join(', ')}`), false),
        600_000,
        5_000,
      );
      const killedAt = performance.now();
      step(`mid-roll: ${statesOf(sim, NODES).join(', ')}; killing serve-a`);
      await a.stop('SIGKILL');
      await waitFor('serve-b takes the Lease', () => holder().startsWith('serve-b_'), 60_000);
      const handOver = performance.now() - killedAt;
      step(`serve-b holds the Lease`);
      const rvAtHandOver = Number(sim.store.resourceVersion());
      await waitFor(
        'serve-b acts',
        () => actingWrites(sim.store.audit()).some((w) => w.who === 'serve-b'),
        30_000,
      );
      const firstAct = performance.now() - killedAt;
      step(`serve-b acted`);
      const answers = await roll;
      step(`roll ended: ${statesOf(sim, NODES).join(', ')}`);
      assert.ok(
        NODES.every((n) => requestOf(sim, n)?.state === 'done'),
        statesOf(sim, NODES).join(', '),
      );
      const reboots = sim.admin.hostLog().filter((h) => h.action === 'reboot');
      for (const node of NODES)
        assert.equal(reboots.filter((h) => h.node === node).length, 1, `${node}: one reboot`);

      const audit = sim.store.audit();
      const writes = actingWrites(audit);
      assert.deepEqual(
        writes.filter((w) => !w.holder.startsWith(`${w.who}_`)).map(describeWrite),
        [],
        'every write by a serve was made while the Lease named it',
      );
      assert.ok(
        writes.some((w) => w.who === 'serve-a' && w.rv < rvAtHandOver),
        'serve-a acted before',
      );
      assert.ok(
        writes.some((w) => w.who === 'serve-b'),
        'serve-b acted after',
      );
      // The Lease expires LEASE_MS after the standby saw its last renewal, which it reads every
      // RETRY_MS; it is taken at the standby's next try.
      assert.ok(
        handOver <= LEASE_MS + 2 * RETRY_MS + 1_000,
        `Lease taken ${Math.round(handOver)} ms after the kill`,
      );
      assert.ok(
        firstAct <= LEASE_MS + 2 * RETRY_MS + TICK_MS + 2_000,
        `first act ${Math.round(firstAct)} ms after the kill`,
      );
      process.stdout.write(
        `# leader SIGKILLed mid-roll: Lease taken by the standby after ${(handOver / 1000).toFixed(1)} s, ` +
          `its first write after ${(firstAct / 1000).toFixed(1)} s; ${writes.length} writes by serves, ` +
          `${answers.approvals} approvals\n`,
      );
    });
  },
);

interface ActingWrite {
  rv: number;
  who: string;
  /** The election Lease's holder when the write was made. */
  holder: string;
  entry: AuditEntry;
}

/**
 * Every write a serve replica made (the actor ends `as serve-a` or `as serve-b`), other than to the
 * election Lease, with the Lease's holder at that moment (the last Lease write before it).
 */
function actingWrites(audit: readonly AuditEntry[]): ActingWrite[] {
  let holder = '';
  const writes: ActingWrite[] = [];
  for (const entry of [...audit].sort((x, y) => x.rv - y.rv)) {
    if (entry.resource === R.leases && entry.name === LEASE) {
      holder = String(
        (entry.object as { spec?: { holderIdentity?: string } }).spec?.holderIdentity ?? '',
      );
      continue;
    }
    const who = / as (serve-[ab])$/.exec(entry.actor)?.[1];
    if (who) writes.push({ rv: entry.rv, who, holder, entry });
  }
  return writes;
}

const describeWrite = (w: ActingWrite): string =>
  `rv ${w.rv} ${w.who} ${w.entry.verb} ${w.entry.resource}${w.entry.subresource ? `/${w.entry.subresource}` : ''} ${w.entry.namespace ?? ''}/${w.entry.name} while ${w.holder || 'nobody'} held the Lease`;
