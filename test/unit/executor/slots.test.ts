import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  acquireSlot,
  holderOf,
  releaseSlot,
  renewSlot,
  type SlotDeps,
} from '../../../src/app/executor/slots.js';
import { KubemaintError } from '../../../src/errors.js';
import { FakeCluster, testClock } from '../../fakes/cluster.js';

const config = { namespace: 'kubemaint', concurrency: 2, ttlMs: 60_000 };
const deps = (cluster: FakeCluster, live: (holder: string) => boolean = () => true): SlotDeps => ({
  leases: cluster.leasesPort(),
  clock: testClock,
  isHolderLive: async (holder) => live(holder),
});
const holders = (cluster: FakeCluster) => [...cluster.leases.values()].map((l) => l.holder).sort();

describe('slots', () => {
  it('creates a slot when none exist', async () => {
    const cluster = new FakeCluster();
    const slot = await acquireSlot(deps(cluster), config, holderOf('n1', 'r-1'));
    assert.match(slot?.name ?? '', /^kubemaint-slot-[01]$/);
    assert.deepEqual(holders(cluster), ['n1/r-1']);
  });

  it('takes a free slot without asking whether any holder is live', async () => {
    const cluster = new FakeCluster();
    const wide = { ...config, concurrency: 8 };
    for (let i = 0; i < 6; i++) await acquireSlot(deps(cluster), wide, `held${i}/r-${i}`);
    let asked = 0;
    const counting: SlotDeps = {
      ...deps(cluster),
      isHolderLive: async () => {
        asked++;
        return true;
      },
    };
    assert.equal((await acquireSlot(counting, wide, 'new/r-new'))?.lease.holder, 'new/r-new');
    assert.equal(asked, 0, 'a free slot was there: no holder needed asking about');
  });

  it('asks whether the holders are live all at once when no slot is free, and executors start at different slots', async () => {
    const cluster = new FakeCluster();
    const wide = { ...config, concurrency: 8 };
    for (let i = 0; i < 8; i++) await acquireSlot(deps(cluster), wide, `held${i}/r-${i}`);
    let asking = 0;
    let most = 0;
    const counting: SlotDeps = {
      ...deps(cluster),
      isHolderLive: async (holder) => {
        most = Math.max(most, ++asking);
        await new Promise((resolve) => setTimeout(resolve, 5));
        asking--;
        return holder !== 'held5/r-5';
      },
    };
    assert.equal((await acquireSlot(counting, wide, 'new/r-new'))?.lease.holder, 'new/r-new');
    assert.equal(most, 8, 'the eight holders were asked about together');
    assert.ok(!holders(cluster).includes('held5/r-5'), 'the stale holder lost its slot');
    const firsts = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const fresh = new FakeCluster();
      firsts.add((await acquireSlot(deps(fresh), wide, `n${i}/r-${i}`))!.name);
    }
    assert.ok(firsts.size >= 4, `20 holders started at ${firsts.size} different slots`);
  });

  it('reclaims a stale slot when the free one is taken between its read and its write', async () => {
    const cluster = new FakeCluster();
    await acquireSlot(deps(cluster), config, 'gone/r-a');
    const leases = cluster.leasesPort();
    const racing: SlotDeps = {
      ...deps(cluster, (h) => h !== 'gone/r-a'),
      // Someone else creates the free slot first: our create conflicts.
      leases: {
        ...leases,
        createLease: async () => {
          throw new KubemaintError('conflict', 'slot created by another executor');
        },
      },
    };
    assert.equal((await acquireSlot(racing, config, 'c/r-c'))?.lease.holder, 'c/r-c');
    assert.deepEqual(holders(cluster), ['c/r-c']);
  });

  it('gives a re-run of the same request the slot it already holds', async () => {
    const cluster = new FakeCluster();
    await acquireSlot(deps(cluster), config, 'n2/r-2');
    const first = await acquireSlot(deps(cluster), config, 'n1/r-1');
    const again = await acquireSlot(deps(cluster), config, 'n1/r-1');
    assert.equal(again?.name, first?.name);
    assert.deepEqual(holders(cluster), ['n1/r-1', 'n2/r-2']);
  });

  it('returns undefined when every slot is validly held', async () => {
    const cluster = new FakeCluster();
    await acquireSlot(deps(cluster), config, 'a/r-a');
    await acquireSlot(deps(cluster), config, 'b/r-b');
    assert.equal(await acquireSlot(deps(cluster), config, 'c/r-c'), undefined);
  });

  it('takes an expired slot and counts the transition', async () => {
    const cluster = new FakeCluster();
    const old = new Date(Date.now() - 120_000);
    await cluster.leasesPort().createLease('kubemaint', 'kubemaint-slot-0', {
      holder: 'a/r-a',
      durationSeconds: 60,
      acquiredAt: old,
      renewedAt: old,
      transitions: 3,
    });
    const slot = await acquireSlot(deps(cluster), { ...config, concurrency: 1 }, 'c/r-c');
    assert.equal(slot?.lease.holder, 'c/r-c');
    assert.equal(slot?.lease.transitions, 4);
  });

  it('with ttl 0 writes a slot that never expires, and still frees it when its holder is stale', async () => {
    const cluster = new FakeCluster();
    const never = { ...config, concurrency: 1, ttlMs: 0 };
    const slot = await acquireSlot(deps(cluster), never, 'a/r-a');
    assert.equal(slot?.lease.durationSeconds, 0);
    // A year without a renewal: still a's.
    const later = { ...testClock, now: () => new Date(Date.now() + 365 * 86_400_000) };
    const held = { ...deps(cluster), clock: later };
    assert.equal(await acquireSlot(held, never, 'b/r-b'), undefined);
    const stale = { ...deps(cluster, (holder) => holder !== 'a/r-a'), clock: later };
    assert.equal((await acquireSlot(stale, never, 'b/r-b'))?.lease.holder, 'b/r-b');
  });

  it('reclaims a slot whose holder is stale (node gone or request ended)', async () => {
    const cluster = new FakeCluster();
    await acquireSlot(deps(cluster), { ...config, concurrency: 1 }, 'gone/r-a');
    const slot = await acquireSlot(
      deps(cluster, (h) => h !== 'gone/r-a'),
      { ...config, concurrency: 1 },
      'c/r-c',
    );
    assert.equal(slot?.lease.holder, 'c/r-c');
  });

  it('releases only its own slot', async () => {
    const cluster = new FakeCluster();
    const slot = await acquireSlot(deps(cluster), config, 'a/r-a');
    assert.equal(await releaseSlot(deps(cluster), config, slot!.name, 'b/r-b'), false);
    assert.equal(await releaseSlot(deps(cluster), config, slot!.name, 'a/r-a'), true);
    assert.deepEqual(holders(cluster), ['']);
  });

  it('stops renewing a slot someone else took', async () => {
    const cluster = new FakeCluster();
    const slot = await acquireSlot(deps(cluster), config, 'a/r-a');
    const lease = cluster.leases.get(`kubemaint/${slot!.name}`)!;
    cluster.leases.set(`kubemaint/${slot!.name}`, {
      ...lease,
      holder: 'b/r-b',
      resourceVersion: cluster.nextRv(),
    });
    assert.equal(await renewSlot(deps(cluster), config, slot!), undefined);
  });

  it('never lets 20 concurrent executors hold more than 2 slots', async () => {
    const cluster = new FakeCluster();
    for (let round = 0; round < 20; round++) {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          acquireSlot(deps(cluster), config, `n${i}/r-${round}`),
        ),
      );
      const won = results.filter(Boolean);
      assert.equal(won.length, 2, `round ${round}`);
      assert.equal(new Set(won.map((s) => s!.name)).size, 2);
      for (const slot of won) await releaseSlot(deps(cluster), config, slot!.name, slot!.holder);
    }
  });
});
