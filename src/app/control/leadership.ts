/**
 * Leadership of `serve` (issue 32, ADR 0046): every retryPeriod a candidate reads the election Lease,
 * decides (core/leader-election.ts) and writes what it decided, conditional on the version it read.
 * It says when it starts leading and when it stops: on a Lease someone else took, on its own stop,
 * and on a renewal deadline that passed without a successful write, found by a timer, not by the
 * next read (a read that hangs must not keep a leader acting).
 */
import {
  actingUntil,
  mayAct,
  nextStep,
  renewed,
  type ElectionMemory,
  type ElectionTimings,
  type LeaseView,
} from '../../core/leader-election.js';
import type { LeaseInfo, LeasesPort } from '../ports.js';

export interface LeadershipDeps {
  leases: LeasesPort;
  namespace: string;
  leaseName: string;
  identity: string;
  timings: ElectionTimings;
  /**
   * Written on the Lease with every renewal, so a standby reads them while this process leads
   * (its Slack receiver's address, core/leader-address.ts); the release drops them.
   */
  annotations?: Record<string, string>;
  /** This process's clock (ms): durations only, never compared with another node's. */
  now: () => number;
  onStartedLeading: () => void;
  onStoppedLeading: (why: string) => void;
  /** The Lease was read and another holds it (the apiserver answers this standby). */
  onStandBy?: () => void;
  /** A read or write that failed (it is retried every retryPeriod). */
  onError?: (error: unknown) => void;
}

export interface Leadership {
  /** Whether this process may act now (tick, dispatch, answer Slack). */
  acting(): boolean;
  /** Stop taking part; a leader releases the Lease so a standby takes over at once. */
  stop(): Promise<void>;
}

export function startLeadership(deps: LeadershipDeps): Leadership {
  const { timings } = deps;
  let memory: ElectionMemory = {};
  let leading = false;
  let stopped = false;
  let lastRead: LeaseInfo | undefined;
  let deadline: NodeJS.Timeout | undefined;
  let next: NodeJS.Timeout | undefined;
  let attempt: Promise<void> = Promise.resolve();
  const held = deps.annotations ? { annotations: deps.annotations } : {};

  const acting = () => !stopped && mayAct(memory, deps.now(), timings);

  /** Say a change of leadership once, and arm the timer that stops acting at the deadline. */
  function settle(why: string): void {
    if (deadline) clearTimeout(deadline);
    deadline = undefined;
    const now = acting();
    if (now && !leading) {
      leading = true;
      deps.onStartedLeading();
    } else if (!now && leading) {
      leading = false;
      deps.onStoppedLeading(why);
    }
    const until = actingUntil(memory, timings);
    if (leading && until !== undefined)
      deadline = setTimeout(
        () => settle(`no renewal for ${timings.renewDeadlineMs / 1000} s`),
        Math.max(0, until - deps.now()),
      );
  }

  async function tryOnce(): Promise<void> {
    try {
      const read = await deps.leases.getLease(deps.namespace, deps.leaseName);
      lastRead = read;
      const decided = nextStep(read && view(read), memory, deps.identity, deps.now(), timings);
      memory = decided.memory;
      const { step } = decided;
      if (step.kind === 'standBy') {
        deps.onStandBy?.();
        return settle(`${step.holder} holds the Lease`);
      }
      const sentAt = deps.now();
      const durationSeconds = Math.ceil(timings.leaseDurationMs / 1000);
      const at = new Date();
      if (step.kind === 'create')
        lastRead = await deps.leases.createLease(deps.namespace, deps.leaseName, {
          holder: deps.identity,
          durationSeconds,
          acquiredAt: at,
          renewedAt: at,
          transitions: 0,
          ...held,
        });
      else
        lastRead = await deps.leases.replaceLease(
          deps.namespace,
          deps.leaseName,
          read!.resourceVersion,
          {
            holder: deps.identity,
            durationSeconds,
            acquiredAt: step.kind === 'renew' ? (read!.acquiredAt ?? at) : at,
            renewedAt: at,
            transitions: read!.transitions + (step.kind === 'acquire' ? 1 : 0),
            ...held,
          },
        );
      // Our own write is a version we saw at once; the renewal counts from when it was sent.
      memory = renewed({ observed: { version: lastRead.resourceVersion, at: sentAt } }, sentAt);
      settle('renewed');
    } catch (error) {
      deps.onError?.(error);
      // A conflict means another wrote first (took it over, or renewed): the next read tells.
      settle('the Lease could not be renewed');
    }
  }

  function schedule(): void {
    if (stopped) return;
    next = setTimeout(() => {
      attempt = tryOnce().finally(schedule);
    }, timings.retryPeriodMs);
  }

  attempt = tryOnce().finally(schedule);

  return {
    acting,
    async stop() {
      const wasActing = acting();
      stopped = true;
      if (next) clearTimeout(next);
      await attempt;
      if (deadline) clearTimeout(deadline);
      if (leading) {
        leading = false;
        deps.onStoppedLeading('serve is stopping');
      }
      if (!wasActing || !lastRead || lastRead.holder !== deps.identity) return;
      // Released as client-go's ReleaseOnCancel does: an empty holder, taken at the standby's next
      // read instead of a lease duration later. A failure only costs the standby that wait.
      const at = new Date();
      await deps.leases
        .replaceLease(deps.namespace, deps.leaseName, lastRead.resourceVersion, {
          holder: '',
          durationSeconds: 1,
          acquiredAt: lastRead.acquiredAt ?? at,
          renewedAt: at,
          transitions: lastRead.transitions,
        })
        .catch((error: unknown) => deps.onError?.(error));
    },
  };
}

function view(lease: LeaseInfo): LeaseView {
  return {
    holder: lease.holder || undefined,
    durationMs: lease.durationSeconds > 0 ? lease.durationSeconds * 1000 : undefined,
    transitions: lease.transitions,
    version: lease.resourceVersion,
  };
}
