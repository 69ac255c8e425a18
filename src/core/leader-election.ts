/**
 * Leader election on a Lease, the decisions alone (issue 32, ADR 0046): given the Lease as read, what
 * this candidate remembers and the time, whether to create, take over, renew or stand by, and whether
 * it may act. The app reads and writes the Lease (adapters/kube/leader-lease.ts); nothing here does.
 *
 * The rules are client-go's leaderelection, so a mixed fleet reasons alike:
 * - a standby measures a Lease's expiry from when *it* first saw the Lease's current version, by its
 *   own clock, never from the holder's renewTime: clocks of two nodes may disagree, durations on one
 *   clock do not;
 * - a leader acts only while its last successful renewal, timed when the write was *sent*, is less
 *   than `renewDeadline` old. renewDeadline < leaseDuration, so a leader that cannot renew stops
 *   acting at least leaseDuration − renewDeadline before any standby can see the Lease expire.
 */

export interface ElectionTimings {
  /** How long a standby waits, after it saw the Lease change last, before taking it over. */
  leaseDurationMs: number;
  /** How long the leader goes on acting after its last renewal succeeded. */
  renewDeadlineMs: number;
  /** How often each candidate reads (and the leader renews) the Lease. */
  retryPeriodMs: number;
}

/** client-go's and controller-runtime's defaults. */
export const DEFAULT_ELECTION: ElectionTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/**
 * What is wrong with a set of timings, or undefined. A renewal must be able to fail and be retried
 * within the deadline, and the leader must stop before a standby may start.
 */
export function timingsProblem(t: ElectionTimings): string | undefined {
  if (t.renewDeadlineMs >= t.leaseDurationMs)
    return 'renewDeadline must be shorter than leaseDuration (the leader stops acting before a standby may take over)';
  if (t.retryPeriodMs * 1.2 >= t.renewDeadlineMs)
    return 'retryPeriod × 1.2 must be shorter than renewDeadline (a failed renewal is retried before the deadline)';
  return undefined;
}

/** The Lease as read from the cluster. */
export interface LeaseView {
  /** Who holds it; empty or undefined when released. */
  holder: string | undefined;
  /** Its spec's leaseDurationSeconds in ms, if set (the holder's, which a standby honours). */
  durationMs: number | undefined;
  transitions: number;
  /** The object's resourceVersion: any write changes it, so a renewal is seen even across skewed clocks. */
  version: string;
}

/** What a candidate carries from one attempt to the next. */
export interface ElectionMemory {
  /** The Lease version last seen, and when (this candidate's clock, ms) it was first seen. */
  observed?: { version: string; at: number };
  /** When the last successful write naming this candidate as holder was sent (ms). */
  renewedAt?: number;
}

export type ElectionStep =
  /** No Lease yet: create it, held by this candidate. */
  | { kind: 'create' }
  /** Released, or expired: write it held by this candidate (one more transition). */
  | { kind: 'acquire'; from: string | undefined }
  /** This candidate holds it: write a new renewTime. */
  | { kind: 'renew' }
  /** Another holds it and it has not expired by this candidate's clock. */
  | { kind: 'standBy'; holder: string; expiresInMs: number };

/**
 * The next step, and the memory after seeing `lease`. A write the step asks for must be a
 * compare-and-swap on `lease.version` (an update with its resourceVersion): two standbys that both
 * decide to take over cannot both succeed.
 */
export function nextStep(
  lease: LeaseView | undefined,
  memory: ElectionMemory,
  identity: string,
  now: number,
  timings: ElectionTimings,
): { step: ElectionStep; memory: ElectionMemory } {
  if (!lease) return { step: { kind: 'create' }, memory: { ...memory } };
  const observed =
    memory.observed?.version === lease.version
      ? memory.observed
      : { version: lease.version, at: now };
  const seen: ElectionMemory = { ...memory, observed };
  if (lease.holder === identity) return { step: { kind: 'renew' }, memory: seen };
  if (!lease.holder) return { step: { kind: 'acquire', from: undefined }, memory: lost(seen) };
  const expiresAt = observed.at + (lease.durationMs ?? timings.leaseDurationMs);
  if (now >= expiresAt)
    return { step: { kind: 'acquire', from: lease.holder }, memory: lost(seen) };
  return {
    step: { kind: 'standBy', holder: lease.holder, expiresInMs: expiresAt - now },
    memory: lost(seen),
  };
}

/** Another holds the Lease (or nobody does): whatever this candidate renewed before no longer counts. */
function lost(memory: ElectionMemory): ElectionMemory {
  const { renewedAt: _renewedAt, ...rest } = memory;
  return rest;
}

/** The memory after a write naming this candidate succeeded; `sentAt` is when it was sent. */
export function renewed(memory: ElectionMemory, sentAt: number): ElectionMemory {
  return { ...memory, renewedAt: sentAt };
}

/**
 * Whether this candidate may act now: it renewed, and less than renewDeadline ago. A leader whose
 * renewals fail (the apiserver is gone, the network is cut) stops by this alone, without having
 * to read anything.
 */
export function mayAct(memory: ElectionMemory, now: number, timings: ElectionTimings): boolean {
  return memory.renewedAt !== undefined && now - memory.renewedAt < timings.renewDeadlineMs;
}

/** When a leader stops acting unless it renews first (ms), or undefined when it is not leading. */
export function actingUntil(memory: ElectionMemory, timings: ElectionTimings): number | undefined {
  return memory.renewedAt === undefined ? undefined : memory.renewedAt + timings.renewDeadlineMs;
}
