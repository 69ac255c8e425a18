/**
 * Lock slots: Leases `kubemaint-slot-0 … kubemaint-slot-<concurrency-1>` in the kubemaint namespace.
 * A slot is taken with a conditional write (create, or replace at the resourceVersion read), so two
 * executors can never both hold one: the loser gets a conflict and moves on. A slot is free when its
 * holder is empty, its lease expired (not renewed within its duration), or its holder is stale (the
 * holder's node is gone, or that node's request is not the holder's active request any more).
 * Holder identity: `<node>/<requestId>`, the same string the control plane's SlotView shows.
 * A TTL of 0 (kured's `--lock-ttl=0`) writes a Lease without a duration, which never expires: only
 * a stale holder (or a person's `kubemaint release`) frees it.
 */
import { KubemaintError } from '../../errors.js';
import { slotName } from '../../core/names.js';
import type { Clock, LeaseInfo, LeaseRecord, LeasesPort } from '../ports.js';

export { slotHolder as holderOf, parseSlotHolder as parseHolder } from '../../core/names.js';

export interface SlotConfig {
  namespace: string;
  concurrency: number;
  /** 0: never expires. */
  ttlMs: number;
}

/**
 * How often a slot that never expires is renewed anyway: the renewal is also how an executor learns
 * that its slot was taken from it (a stale holder, a `release`), and `kubemaint slots` shows it.
 */
const NEVER_EXPIRES_RENEW_MS = 60_000;

export interface SlotDeps {
  leases: LeasesPort;
  clock: Clock;
  /** Whether the holder still has a reason to hold (its node exists with that request active). */
  isHolderLive: (holder: string) => Promise<boolean>;
}

export interface HeldSlot {
  name: string;
  holder: string;
  lease: LeaseInfo;
}

const isConflict = (error: unknown): boolean =>
  error instanceof KubemaintError && error.code === 'conflict';

export function isExpired(lease: LeaseInfo, now: Date): boolean {
  if (lease.durationSeconds <= 0) return false;
  const renewed = lease.renewedAt ?? lease.acquiredAt;
  if (!renewed) return true;
  return renewed.getTime() + lease.durationSeconds * 1_000 <= now.getTime();
}

function record(
  holder: string,
  ttlMs: number,
  now: Date,
  acquiredAt: Date,
  transitions: number,
): LeaseRecord {
  return {
    holder,
    durationSeconds: Math.ceil(ttlMs / 1_000),
    acquiredAt,
    renewedAt: now,
    transitions,
  };
}

/** Whether `lease` may be taken by what it says itself: not created, emptied, or expired. */
function plainlyFree(lease: LeaseInfo | undefined, now: Date): boolean {
  return !lease || lease.holder === '' || isExpired(lease, now);
}

/**
 * Take a slot for `holder`, or return undefined when every slot is validly held by someone else.
 * A slot this holder already has (a re-run of the same request) is renewed, never doubled.
 */
export async function acquireSlot(
  deps: SlotDeps,
  config: SlotConfig,
  holder: string,
): Promise<HeldSlot | undefined> {
  const names = Array.from({ length: config.concurrency }, (_, i) => slotName(i));
  const leases = await Promise.all(
    names.map((name) => deps.leases.getLease(config.namespace, name)),
  );
  const seen = new Map(names.map((name, i) => [name, leases[i]]));
  for (const [name, lease] of seen) {
    if (lease?.holder === holder) {
      const renewed = await renewSlot(deps, config, { name, holder, lease });
      if (renewed) return renewed;
    }
  }
  // A slot free by what its lease says is tried before anyone's liveness is asked: whether a holder
  // is still live is a read of its request, and in a full roll every executor would otherwise read
  // every other holder's. The control plane counts in-flight requests, not leases, so when it
  // dispatched this executor a slot is free or stale. Only when no free slot could be taken are the
  // holders asked about, all at once, not one after another: executors released together start
  // together.
  const now = deps.clock.now();
  const free: [string, LeaseInfo | undefined][] = [];
  const held: [string, LeaseInfo | undefined][] = [];
  for (const entry of seen) (plainlyFree(entry[1], now) ? free : held).push(entry);
  const taken = await takeFirst(deps, config, holder, free, now);
  if (taken) return taken;
  const live = await Promise.all(held.map(([, lease]) => deps.isHolderLive(lease!.holder)));
  return takeFirst(
    deps,
    config,
    holder,
    held.filter((_, i) => !live[i]),
    now,
  );
}

/**
 * Take the first of `candidates` this holder wins, or undefined. Several executors read the same
 * free slots at the same moment; each starts at a different one (by its holder), so they rarely race
 * for one write and the losers rarely walk the whole list.
 */
async function takeFirst(
  deps: SlotDeps,
  config: SlotConfig,
  holder: string,
  candidates: [string, LeaseInfo | undefined][],
  now: Date,
): Promise<HeldSlot | undefined> {
  const start = candidates.length > 0 ? spread(holder) % candidates.length : 0;
  for (const [name, lease] of [...candidates.slice(start), ...candidates.slice(0, start)]) {
    try {
      if (!lease) {
        const created = await deps.leases.createLease(
          config.namespace,
          name,
          record(holder, config.ttlMs, now, now, 0),
        );
        return { name, holder, lease: created };
      }
      const taken = await deps.leases.replaceLease(
        config.namespace,
        name,
        lease.resourceVersion,
        record(holder, config.ttlMs, now, now, lease.transitions + 1),
      );
      return { name, holder, lease: taken };
    } catch (error) {
      if (!isConflict(error)) throw error;
      // Another executor took it between our read and our write: try the next slot.
    }
  }
  return undefined;
}

/** A small, stable number from a string (FNV-1a, then mixed so the low bits vary too). */
function spread(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/** Extend the lease; undefined when it is no longer ours (someone reclaimed it). */
export async function renewSlot(
  deps: Pick<SlotDeps, 'leases' | 'clock'>,
  config: SlotConfig,
  slot: HeldSlot,
): Promise<HeldSlot | undefined> {
  let lease: LeaseInfo | undefined = slot.lease;
  for (let attempt = 0; attempt < 5 && lease; attempt++) {
    if (lease.holder !== slot.holder) return undefined;
    const now = deps.clock.now();
    try {
      const renewed = await deps.leases.replaceLease(
        config.namespace,
        slot.name,
        lease.resourceVersion,
        record(slot.holder, config.ttlMs, now, lease.acquiredAt ?? now, lease.transitions),
      );
      return { ...slot, lease: renewed };
    } catch (error) {
      if (!isConflict(error)) throw error;
      lease = await deps.leases.getLease(config.namespace, slot.name);
    }
  }
  return undefined;
}

/** Give the slot back (holder emptied), unless someone else holds it by now. */
export async function releaseSlot(
  deps: Pick<SlotDeps, 'leases' | 'clock'>,
  config: SlotConfig,
  name: string,
  holder: string,
): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const lease = await deps.leases.getLease(config.namespace, name);
    if (!lease || lease.holder !== holder) return false;
    const now = deps.clock.now();
    try {
      await deps.leases.replaceLease(config.namespace, name, lease.resourceVersion, {
        holder: '',
        durationSeconds: 1,
        acquiredAt: lease.acquiredAt ?? now,
        renewedAt: now,
        transitions: lease.transitions,
      });
      return true;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
  return false;
}

/**
 * Renew every `ttl/3` (every minute when it never expires) until stopped; `onLost` runs once if the slot stops being ours, so the caller
 * can stop before doing anything disruptive without it.
 */
export function keepRenewing(
  deps: Pick<SlotDeps, 'leases' | 'clock'>,
  config: SlotConfig,
  slot: HeldSlot,
  onLost: (why: string) => void,
): { stop: () => void; current: () => HeldSlot } {
  const stopped = new AbortController();
  let held = slot;
  const loop = async (): Promise<void> => {
    while (!stopped.signal.aborted) {
      const every = config.ttlMs > 0 ? Math.max(100, config.ttlMs / 3) : NEVER_EXPIRES_RENEW_MS;
      await deps.clock.sleep(every, stopped.signal);
      if (stopped.signal.aborted) return;
      try {
        const renewed = await renewSlot(deps, config, held);
        if (!renewed) return onLost(`slot ${slot.name} was taken by someone else`);
        held = renewed;
      } catch (error) {
        // A failed renewal is not yet a lost slot: the lease is valid until its duration passes.
        if (isExpired(held.lease, deps.clock.now())) {
          return onLost(
            `slot ${slot.name} expired: ${error instanceof Error ? error.message : ''}`,
          );
        }
      }
    }
  };
  void loop();
  return { stop: () => stopped.abort(), current: () => held };
}
