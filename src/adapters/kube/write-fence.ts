/**
 * A fence on a client's writes (ADR 0060). A serve asks whether it leads when a tick starts; a tick
 * that then hung on a silent network, or backed off in its retries, went on once the network came
 * back and wrote after another serve had taken the Lease (the partition fault of
 * test/real/faults.test.ts, CI of 2026-12-03: an approval, a cordon and an Event by the old leader).
 * A fenced client asks before every write it sends, attempt by attempt, so a retry asks again.
 * Reads pass: a standby reads the fleet for its status page and the Lease for Slack.
 */
import type { RequestContext } from '@kubernetes/client-node';
import { KubeError } from './errors.js';

export interface WriteFence {
  /** Why a write may not be sent now; undefined when it may. */
  refusal(): string | undefined;
}

/** A fence open to every write until `holdWhen` says when it holds (a cluster's loop, once it elects). */
export interface SettableFence extends WriteFence {
  holdWhen(refusal: () => string | undefined): void;
}

export function settableFence(): SettableFence {
  let why: () => string | undefined = () => undefined;
  return {
    refusal: () => why(),
    holdWhen(refusal) {
      why = refusal;
    },
  };
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Throws the fence's refusal for a write it holds; a held write never reaches the apiserver. */
export function checkFence(fence: WriteFence, context: RequestContext): void {
  const method = String(context.getHttpMethod()).toUpperCase();
  if (READS.has(method)) return;
  const why = fence.refusal();
  if (why === undefined) return;
  const path = new URL(context.getUrl()).pathname;
  throw new KubeError('fenced', `${method} ${path} not sent: ${why}`, { status: 0 });
}
