/**
 * How a drain describes itself to people: "31 of 40 pods evicted; waiting on payments/api-7f9 — PDB
 * payments-api allows 0 disruptions". Pure formatting over the drain's per-pod states; the summary
 * stays short because it lives in the node annotation (ADR 1: a few KB at most).
 */
import type { DrainProgress } from '../../core/request.js';

export type PodStatus = 'pending' | 'refused' | 'terminating' | 'done' | 'skipped' | 'failed';

export interface PodState {
  ref: string;
  uid: string;
  status: PodStatus;
  /** Why it is not done yet (a PDB refusal, "terminating", an error). */
  reason: string;
  deletionTimestamp?: Date;
}

const MAX_LISTED = 5;

/** "The disruption budget web-pdb needs 2 healthy pods and has 2 currently" → a sentence about the PDB. */
export function describeRefusal(message: string, pdbBlocked: boolean): string {
  const match = /disruption budget (\S+) needs (\d+) healthy pods? and has (\d+)/i.exec(message);
  if (match)
    return `PDB ${match[1]} allows 0 disruptions (needs ${match[2]} healthy, has ${match[3]})`;
  const processing = /disruption budget (\S+) is still being processed/i.exec(message);
  if (processing) return `PDB ${processing[1]} is still being processed by the server`;
  return pdbBlocked ? `PDB refused: ${message}` : message;
}

export const isOpen = (state: PodState): boolean =>
  state.status === 'pending' || state.status === 'refused' || state.status === 'terminating';

export function summarize(
  states: readonly PodState[],
  stalledSince: Date | undefined,
  forceAt?: Date,
): DrainProgress {
  const total = states.length;
  const evicted = states.filter((s) => s.status === 'done').length;
  const open = states.filter(isOpen);
  // Refusals first: they are what people can act on.
  const ordered = [...open].sort(
    (a, b) => Number(b.status === 'refused') - Number(a.status === 'refused'),
  );
  const waitingOn = ordered.slice(0, MAX_LISTED).map((s) => ({ pod: s.ref, reason: s.reason }));
  const failed = states.filter((s) => s.status === 'failed');
  let message = `${evicted} of ${total} pods evicted`;
  const first = waitingOn[0];
  if (first) {
    message += `; waiting on ${first.pod} — ${first.reason}`;
    if (open.length > 1) message += ` (and ${open.length - 1} more)`;
  }
  if (failed.length > 0)
    message += `; ${failed.length} failed: ${failed[0]?.ref} — ${failed[0]?.reason}`;
  // Why the node is still cordoned past the timeout, and until when (drain.onTimeout: force).
  if (forceAt && open.length > 0)
    message += `; drain timed out: the remaining pods are deleted at ${forceAt.toISOString()} (drain.onTimeout: force)`;
  return {
    total,
    evicted,
    waitingOn,
    ...(stalledSince ? { stalledSince: stalledSince.toISOString() } : {}),
    ...(forceAt ? { forceAt: forceAt.toISOString() } : {}),
    message,
  };
}
