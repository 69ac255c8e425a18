/**
 * Leadership (app/control/leadership.ts, ADR 0046) over the simulator's real Lease API, two
 * candidates in this process with short timings (lease 3 s, renew deadline 2 s, retry 0.5 s): one
 * leads; a leader cut off from the apiserver (its Lease reads and writes fail, the other's do not)
 * stops acting before the other may start, which takes over once the Lease expired by its own clock;
 * a leader that stops releases the Lease and the other takes it at its next try. Who may act is
 * sampled every 20 ms: two at once is what must never be seen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { startLeadership, type Leadership } from '../../../src/app/control/leadership.js';
import { createKubeClient } from '../../../src/adapters/kube/client.js';
import { kubeLeasesPort } from '../../../src/adapters/kube/leases.js';
import { DEFAULT_RETRY } from '../../../src/adapters/kube/retry.js';
import type { LeasesPort } from '../../../src/app/ports.js';
import type { ElectionTimings } from '../../../src/core/leader-election.js';
import { R } from '@kubemaint/kubesim';
import { startSimApi, type SimApi } from '@kubemaint/kubesim/testing';

const TIMINGS: ElectionTimings = {
  leaseDurationMs: 3_000,
  renewDeadlineMs: 2_000,
  retryPeriodMs: 500,
};
const NS = 'kubemaint';
const LEASE = 'kubemaint-serve-leader';

describe(
  'leadership on the sim: one acts at a time, a standby takes over',
  { timeout: 60_000 },
  () => {
    let sim: SimApi;
    let leases: LeasesPort;
    const running: Leadership[] = [];
    /** What each candidate says happened, with the time (performance.now()). */
    const said: { who: string; what: string; at: number }[] = [];

    before(async () => {
      sim = await startSimApi();
      await sim.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
      leases = kubeLeasesPort(createKubeClient(sim.kc, { ...DEFAULT_RETRY, attempts: 1 }));
    });
    after(async () => {
      await Promise.all(running.map((l) => l.stop()));
      await sim.close();
    });

    function candidate(who: string, port: LeasesPort): Leadership {
      const leadership = startLeadership({
        leases: port,
        namespace: NS,
        leaseName: LEASE,
        identity: who,
        timings: TIMINGS,
        now: () => performance.now(),
        onStartedLeading: () => said.push({ who, what: 'leading', at: performance.now() }),
        onStoppedLeading: (why) =>
          said.push({ who, what: `stopped: ${why}`, at: performance.now() }),
      });
      running.push(leadership);
      return leadership;
    }

    /** Samples who may act every 20 ms until `done()`; fails on two at once. */
    async function watchActing(
      who: Record<string, Leadership>,
      done: () => boolean,
      timeoutMs: number,
    ): Promise<void> {
      const deadline = performance.now() + timeoutMs;
      while (!done()) {
        const acting = Object.entries(who)
          .filter(([, l]) => l.acting())
          .map(([name]) => name);
        assert.ok(acting.length <= 1, `both acting: ${acting.join(', ')}`);
        assert.ok(
          performance.now() < deadline,
          `not done in ${timeoutMs} ms: ${JSON.stringify(said)}`,
        );
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    const holder = () =>
      (sim.store.get(R.leases, NS, LEASE)?.spec as { holderIdentity?: string } | undefined)
        ?.holderIdentity;

    let cut = false;
    let a: Leadership;
    let b: Leadership;

    it('the first candidate creates the Lease and leads; the second stands by', async () => {
      // a's calls fail while `cut` is set, as a leader partitioned from the apiserver sees them.
      const partitioned: LeasesPort = {
        getLease: (...args) =>
          cut ? Promise.reject(new Error('cut off')) : leases.getLease(...args),
        createLease: (...args) =>
          cut ? Promise.reject(new Error('cut off')) : leases.createLease(...args),
        replaceLease: (...args) =>
          cut ? Promise.reject(new Error('cut off')) : leases.replaceLease(...args),
      };
      a = candidate('a', partitioned);
      await watchActing({ a }, () => a.acting(), 5_000);
      b = candidate('b', leases);
      // b has read the Lease a few times by now, and never acted.
      await watchActing(
        { a, b },
        () => said.length > 0 && performance.now() > said[0]!.at + 2_000,
        5_000,
      );
      assert.equal(holder(), 'a');
      assert.equal(b.acting(), false);
    });

    it('a leader cut off stops acting within renewDeadline; the standby takes over after leaseDuration', async () => {
      const cutAt = performance.now();
      cut = true;
      await watchActing({ a, b }, () => b.acting(), 10_000);
      const stopped = said.find((s) => s.who === 'a' && s.what.startsWith('stopped'))!;
      const took = said.find((s) => s.who === 'b' && s.what === 'leading')!;
      assert.match(stopped.what, /no renewal for 2 s/);
      // a stopped before b started, by at least leaseDuration − renewDeadline less a retry period
      // (b's read that saw the last renewal may come up to a retry period after it was written).
      assert.ok(
        took.at - stopped.at >=
          TIMINGS.leaseDurationMs - TIMINGS.renewDeadlineMs - TIMINGS.retryPeriodMs,
        JSON.stringify(said),
      );
      // Within the lease duration and a retry or two of the cut.
      assert.ok(
        took.at - cutAt <= TIMINGS.leaseDurationMs + 2_000, // a loaded machine answers slower
        `${took.at - cutAt} ms: ${JSON.stringify(said.map((x) => ({ ...x, at: Math.round(x.at - cutAt) })))}`,
      );
      assert.equal(holder(), 'b');
      process.stdout.write(
        `# cut at 0 ms: a stopped acting at ${Math.round(stopped.at - cutAt)} ms, b leading at ${Math.round(took.at - cutAt)} ms\n`,
      );
    });

    it('the old leader, back in touch, stands by; a leader that stops releases the Lease at once', async () => {
      cut = false;
      await new Promise((r) => setTimeout(r, 3 * TIMINGS.retryPeriodMs));
      assert.equal(a.acting(), false);
      assert.equal(holder(), 'b');
      const stoppedAt = performance.now();
      await b.stop();
      assert.equal(holder(), '', `released: ${JSON.stringify(said)}`);
      await watchActing({ a, b }, () => a.acting(), 5_000);
      // Taken at a's next try, not a lease duration later.
      assert.ok(
        performance.now() - stoppedAt < TIMINGS.leaseDurationMs,
        `${performance.now() - stoppedAt} ms`,
      );
    });
  },
);
