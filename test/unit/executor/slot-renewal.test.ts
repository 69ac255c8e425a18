/**
 * The rules that keep a Lease slot honest over time: how long a slot lasts without a renewal, when
 * it counts as expired, how often the executor renews it, and when the executor must learn that it
 * lost it. A stepped clock: each `sleep` waits until the test lets it pass, so nothing here waits on
 * real time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  acquireSlot,
  isExpired,
  keepRenewing,
  releaseSlot,
  renewSlot,
  type SlotDeps,
} from '../../../src/app/executor/slots.js';
import type { Clock, LeaseInfo, LeasesPort } from '../../../src/app/ports.js';
import { KubemaintError } from '../../../src/errors.js';
import { FakeCluster } from '../../fakes/cluster.js';

const T0 = new Date('2026-12-01T10:00:00Z');
const config = { namespace: 'kubemaint', concurrency: 1, ttlMs: 60_000 };

/** A clock the test moves: `sleep` records how long it was asked to wait and waits for `pass()`. */
class SteppedClock implements Clock {
  at = T0.getTime();
  readonly asked: number[] = [];
  private waiting: (() => void) | undefined;
  now = (): Date => new Date(this.at);
  sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    this.asked.push(ms);
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      this.waiting = () => {
        this.at += ms;
        resolve();
      };
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  };
  /** Let the pending sleep end, then let the loop run until it sleeps again (or ends). */
  async pass(): Promise<void> {
    const wake = this.waiting;
    this.waiting = undefined;
    wake?.();
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Another writer changed the slot's Lease since our read: only its resourceVersion moves. */
const bumpVersion = (cluster: FakeCluster, name: string) =>
  cluster.leases.set(`kubemaint/${name}`, {
    ...cluster.leases.get(`kubemaint/${name}`)!,
    resourceVersion: cluster.nextRv(),
  });

const deps = (cluster: FakeCluster, clock: Clock, leases?: LeasesPort): SlotDeps => ({
  leases: leases ?? cluster.leasesPort(),
  clock,
  isHolderLive: async () => true,
});

const lease = (renewedAt: Date | undefined, durationSeconds: number): LeaseInfo => ({
  name: 'kubemaint-slot-0',
  resourceVersion: '1',
  holder: 'a/r-a',
  durationSeconds,
  ...(renewedAt ? { renewedAt } : {}),
  transitions: 0,
});

const conflict = (): KubemaintError => new KubemaintError('conflict', 'leases "kubemaint-slot-0"');

describe('slot lifetime', () => {
  it('a slot lasts the TTL in whole seconds (rounded up), so a stale one is reclaimed after it', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = await acquireSlot(deps(cluster, clock), config, 'a/r-a');
    assert.equal(slot?.lease.durationSeconds, 60);
    const odd = await acquireSlot(
      deps(new FakeCluster(), clock),
      { ...config, ttlMs: 1_500 },
      'a/r-a',
    );
    assert.equal(odd?.lease.durationSeconds, 2, 'a 1.5 s TTL is not cut to 1 s');
  });

  it('a lease expires exactly when its duration has passed since the last renewal, not before', () => {
    const renewed = lease(T0, 60);
    assert.equal(isExpired(renewed, new Date(T0.getTime() + 59_999)), false);
    assert.equal(isExpired(renewed, new Date(T0.getTime() + 60_000)), true);
    assert.equal(isExpired(renewed, new Date(T0.getTime() + 3_600_000)), true);
  });

  it('a lease never renewed counts from when it was acquired; one with neither time is expired', () => {
    const acquired = { ...lease(undefined, 60), acquiredAt: T0 };
    assert.equal(isExpired(acquired, new Date(T0.getTime() + 30_000)), false);
    assert.equal(isExpired(acquired, new Date(T0.getTime() + 60_000)), true);
    assert.equal(isExpired(lease(undefined, 60), T0), true);
  });

  it('a lease without a duration (ttl 0) never expires, however old', () => {
    assert.equal(isExpired(lease(new Date(0), 0), T0), false);
  });

  it('a slot whose lease is still valid is not taken by another holder', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    await acquireSlot(deps(cluster, clock), config, 'a/r-a');
    clock.at += 59_000;
    assert.equal(
      await acquireSlot(
        { ...deps(cluster, clock), isHolderLive: async () => true },
        config,
        'b/r-b',
      ),
      undefined,
    );
    clock.at += 1_000;
    assert.equal((await acquireSlot(deps(cluster, clock), config, 'b/r-b'))?.lease.holder, 'b/r-b');
  });
});

describe('renewing and releasing a slot', () => {
  it('a renewal keeps when the slot was acquired and its transitions, and moves the renewal time', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    clock.at += 10_000;
    const renewed = (await renewSlot(deps(cluster, clock), config, slot))!;
    assert.equal(renewed.lease.holder, 'a/r-a');
    assert.equal(renewed.lease.acquiredAt?.getTime(), T0.getTime());
    assert.equal(renewed.lease.renewedAt?.getTime(), T0.getTime() + 10_000);
    assert.equal(renewed.lease.transitions, slot.lease.transitions);
    assert.equal(renewed.lease.durationSeconds, 60);
  });

  it('a renewal that loses a write race reads the lease again and renews it if it is still ours', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    // Someone (a `kubemaint slots` read-modify-write) bumped the resourceVersion since our read.
    bumpVersion(cluster, slot.name);
    const renewed = await renewSlot(deps(cluster, clock), config, slot);
    assert.equal(renewed?.lease.holder, 'a/r-a');
  });

  it('a renewal gives up after a few conflicts instead of spinning, and says the slot is not renewed', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    let writes = 0;
    const busy: LeasesPort = {
      ...cluster.leasesPort(),
      replaceLease: async () => {
        writes++;
        throw conflict();
      },
    };
    assert.equal(await renewSlot(deps(cluster, clock, busy), config, slot), undefined);
    assert.equal(writes, 5);
  });

  it('a renewal of a slot whose Lease was deleted reports it lost', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    bumpVersion(cluster, slot.name);
    const gone: LeasesPort = {
      ...cluster.leasesPort(),
      getLease: async () => undefined,
    };
    assert.equal(await renewSlot(deps(cluster, clock, gone), config, slot), undefined);
  });

  it('a renewal error that is not a conflict is not swallowed', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    const broken: LeasesPort = {
      ...cluster.leasesPort(),
      replaceLease: async () => {
        throw new KubemaintError('unexpected', 'apiserver unavailable');
      },
    };
    await assert.rejects(renewSlot(deps(cluster, clock, broken), config, slot), /unavailable/);
    await assert.rejects(
      releaseSlot(deps(cluster, clock, broken), config, slot.name, 'a/r-a'),
      /unavailable/,
    );
  });

  it('a release empties the holder but keeps the count of transitions, and retries a lost write race', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    clock.at += 30_000;
    const leases = cluster.leasesPort();
    let raced = false;
    const racing: LeasesPort = {
      ...leases,
      replaceLease: async (ns, name, rv, record) => {
        if (!raced) {
          raced = true;
          throw conflict();
        }
        return leases.replaceLease(ns, name, rv, record);
      },
    };
    assert.equal(await releaseSlot(deps(cluster, clock, racing), config, slot.name, 'a/r-a'), true);
    const released = cluster.leases.get(`kubemaint/${slot.name}`)!;
    assert.equal(released.holder, '');
    assert.equal(released.transitions, slot.lease.transitions);
    assert.equal(released.acquiredAt?.getTime(), T0.getTime());
  });

  it('a release of a slot that does not exist, or that conflicts every time, reports nothing released', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    assert.equal(
      await releaseSlot(deps(cluster, clock), config, 'kubemaint-slot-0', 'a/r-a'),
      false,
    );
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    let writes = 0;
    const busy: LeasesPort = {
      ...cluster.leasesPort(),
      replaceLease: async () => {
        writes++;
        throw conflict();
      },
    };
    assert.equal(await releaseSlot(deps(cluster, clock, busy), config, slot.name, 'a/r-a'), false);
    assert.equal(writes, 5, 'five attempts, as a renewal makes');
    assert.equal(cluster.leases.get(`kubemaint/${slot.name}`)?.holder, 'a/r-a');
  });
});

describe('taking a slot', () => {
  /** The names of the Leases written through `leases`, in order. */
  const recording = (leases: LeasesPort, written: string[]): LeasesPort => ({
    ...leases,
    createLease: async (ns, name, record) => {
      written.push(name);
      return leases.createLease(ns, name, record);
    },
    replaceLease: async (ns, name, rv, record) => {
      written.push(name);
      return leases.replaceLease(ns, name, rv, record);
    },
  });

  it('writes only the slot Leases kubemaint-slot-<n> (the executor may write no other), each once per attempt', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const wide = { ...config, concurrency: 4 };
    // Every slot exists and is free by what it says (emptied by a release), and every write loses a race.
    for (let i = 0; i < 4; i++) {
      await cluster.leasesPort().createLease('kubemaint', `kubemaint-slot-${i}`, {
        holder: '',
        durationSeconds: 1,
        acquiredAt: T0,
        renewedAt: T0,
        transitions: 1,
      });
    }
    const written: string[] = [];
    const losing: LeasesPort = {
      ...recording(cluster.leasesPort(), written),
      replaceLease: async (_ns, name) => {
        written.push(name);
        throw conflict();
      },
    };
    assert.equal(await acquireSlot(deps(cluster, clock, losing), wide, 'a/r-a'), undefined);
    assert.deepEqual([...written].sort(), [
      'kubemaint-slot-0',
      'kubemaint-slot-1',
      'kubemaint-slot-2',
      'kubemaint-slot-3',
    ]);
  });

  it('an API error other than a lost race is reported, not taken for "no free slot"', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const broken: LeasesPort = {
      ...cluster.leasesPort(),
      createLease: async () => {
        throw new KubemaintError('unexpected', 'leases is forbidden');
      },
    };
    await assert.rejects(acquireSlot(deps(cluster, clock, broken), config, 'a/r-a'), /forbidden/);
  });

  it('a re-run whose old slot was taken meanwhile takes another free slot', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const two = { ...config, concurrency: 2 };
    const first = (await acquireSlot(deps(cluster, clock), { ...two, concurrency: 1 }, 'a/r-a'))!;
    const leases = cluster.leasesPort();
    const key = `kubemaint/${first.name}`;
    const written: string[] = [];
    const stolen: LeasesPort = {
      ...recording(leases, written),
      // Between the re-run's read and its renewal, b took the slot (a's lease had expired).
      replaceLease: async (ns, name, rv, record) => {
        if (name === first.name && record.holder === 'a/r-a') {
          cluster.leases.set(key, {
            ...cluster.leases.get(key)!,
            holder: 'b/r-b',
            resourceVersion: cluster.nextRv(),
          });
          throw conflict();
        }
        return leases.replaceLease(ns, name, rv, record);
      },
    };
    const again = await acquireSlot(deps(cluster, clock, stolen), two, 'a/r-a');
    assert.equal(again?.lease.holder, 'a/r-a');
    assert.notEqual(again?.name, first.name);
    assert.equal(cluster.leases.get(key)?.holder, 'b/r-b');
  });
});

describe('keepRenewing', () => {
  it('renews every third of the TTL, so two renewals can fail before the slot expires', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    const renewing = keepRenewing(deps(cluster, clock), config, slot, () =>
      assert.fail('not lost'),
    );
    await clock.pass();
    await clock.pass();
    renewing.stop();
    assert.deepEqual(clock.asked, [20_000, 20_000, 20_000]);
    assert.equal(renewing.current().lease.renewedAt?.getTime(), T0.getTime() + 40_000);
    assert.equal(
      cluster.leases.get(`kubemaint/${slot.name}`)?.renewedAt?.getTime(),
      T0.getTime() + 40_000,
    );
  });

  it('renews a slot that never expires every minute, and a very short TTL no faster than every 100 ms', async () => {
    for (const [ttlMs, every] of [
      [0, 60_000],
      [90, 100],
    ] as const) {
      const cluster = new FakeCluster();
      const clock = new SteppedClock();
      const slots = { ...config, ttlMs };
      const slot = (await acquireSlot(deps(cluster, clock), slots, 'a/r-a'))!;
      const renewing = keepRenewing(deps(cluster, clock), slots, slot, () => undefined);
      await clock.pass();
      renewing.stop();
      assert.equal(clock.asked[0], every, `ttl ${ttlMs} ms`);
    }
  });

  it('tells the executor once when someone else took its slot, and stops renewing', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    const lost: string[] = [];
    const renewing = keepRenewing(deps(cluster, clock), config, slot, (why) => lost.push(why));
    await clock.pass();
    const key = `kubemaint/${slot.name}`;
    cluster.leases.set(key, {
      ...cluster.leases.get(key)!,
      holder: 'b/r-b',
      resourceVersion: cluster.nextRv(),
    });
    await clock.pass();
    await clock.pass();
    renewing.stop();
    assert.deepEqual(lost, [`slot ${slot.name} was taken by someone else`]);
    assert.equal(clock.asked.length, 2, 'no renewal was attempted after the loss');
    assert.equal(cluster.leases.get(key)?.holder, 'b/r-b');
  });

  it('a failed renewal is not a lost slot until the lease has expired', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    const broken: LeasesPort = {
      ...cluster.leasesPort(),
      replaceLease: async () => {
        throw new KubemaintError('unexpected', 'apiserver unavailable');
      },
    };
    const lost: string[] = [];
    const renewing = keepRenewing(deps(cluster, clock, broken), config, slot, (why) =>
      lost.push(why),
    );
    await clock.pass(); // 20 s: still valid
    await clock.pass(); // 40 s: still valid
    assert.deepEqual(lost, []);
    await clock.pass(); // 60 s: expired
    await clock.pass();
    renewing.stop();
    assert.deepEqual(lost, [`slot ${slot.name} expired: apiserver unavailable`]);
    assert.equal(clock.asked.length, 3);
  });

  it('a renewal that fails with something other than an Error still ends in "expired"', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), { ...config, ttlMs: 3_000 }, 'a/r-a'))!;
    const odd: LeasesPort = {
      ...cluster.leasesPort(),
      // What a client library may reject with: not an Error, so there is no message to tell.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      replaceLease: async () => Promise.reject(new Map()),
    };
    const lost: string[] = [];
    const slots = { ...config, ttlMs: 3_000 };
    const renewing = keepRenewing(deps(cluster, clock, odd), slots, slot, (why) => lost.push(why));
    for (let i = 0; i < 4; i++) await clock.pass();
    renewing.stop();
    assert.deepEqual(lost, [`slot ${slot.name} expired: `]);
  });

  it('stop ends the loop: no renewal after it, and the slot is left as it was', async () => {
    const cluster = new FakeCluster();
    const clock = new SteppedClock();
    const slot = (await acquireSlot(deps(cluster, clock), config, 'a/r-a'))!;
    const renewing = keepRenewing(deps(cluster, clock), config, slot, () =>
      assert.fail('not lost'),
    );
    renewing.stop();
    await clock.pass();
    await clock.pass();
    assert.equal(renewing.current(), slot);
    assert.equal(cluster.leases.get(`kubemaint/${slot.name}`)?.renewedAt?.getTime(), T0.getTime());
  });
});
