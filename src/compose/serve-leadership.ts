/**
 * `serve.leaderElection` wired for one cluster of a serve process (ADR 0046, 0054): the election on
 * the Lease in that cluster's kubemaint namespace, under this process's identity (the pod's name and
 * a random suffix, as client-go adds one, so a restarted pod is a new candidate; one identity for
 * every cluster the process works), and an always-acting stand-in when it is off.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLeadership, type Leadership } from '../app/control/leadership.js';
import { relayTarget, SLACK_URL_ANNOTATION, type RelayTarget } from '../core/leader-address.js';
import { kubeLeasesPort } from '../adapters/kube/leases.js';
import { createKubeClient, type KubeClient } from '../adapters/kube/client.js';
import { DEFAULT_RETRY } from '../adapters/kube/retry.js';
import type { LeaderElectionConfig } from '../config/schema-serve.js';
import type { Logger } from '../log.js';
import { messageOf } from '../error-message.js';

export interface ServeLeadership extends Leadership {
  /** For the ready line: `leader election: lease NS/NAME as IDENTITY`, or undefined when off. */
  description?: string;
  /**
   * Whom a Slack request this process must not decide goes to: the Lease read now (a read of
   * the election's own, up to 2 s old, may name a leader that just left), or none.
   */
  relayTarget(): Promise<RelayTarget>;
}

/** A standby's read of the Lease for a Slack request: Slack's 3 s also pay for the relay. */
const LEASE_READ_MS = 1_000;

export function serveLeadership(options: {
  config: LeaderElectionConfig;
  client: KubeClient;
  namespace: string;
  /** serveIdentity(), once per process. */
  identity: string;
  /** This replica's Slack receiver as another replica reaches it (written on the Lease), if any. */
  slackUrl?: string;
  log: Logger;
  onStartedLeading: () => void;
  onStoppedLeading: (why: string) => void;
  /** The Lease was read while another holds it: the apiserver answers this standby. */
  onStandBy: () => void;
  /** The Lease was not read or written (a refusal, such as a 401, is for /readyz to say). */
  onError: (error: unknown) => void;
}): ServeLeadership {
  const { config, log, identity } = options;
  if (!config.enabled) {
    // One replica by the operator's choice: it acts from the start, as before leader election.
    queueMicrotask(options.onStartedLeading);
    return {
      acting: () => true,
      stop: () => Promise.resolve(),
      relayTarget: () => Promise.resolve({ kind: 'none', why: 'leader election is off' }),
    };
  }
  // One try a call: the election tries again every retryPeriod itself, and a leader must not
  // spend its renew deadline backing off inside a single renewal.
  const leases = kubeLeasesPort(
    createKubeClient(options.client.config, { ...DEFAULT_RETRY, attempts: 1 }),
  );
  const leadership = startLeadership({
    leases,
    namespace: options.namespace,
    leaseName: config.leaseName,
    identity,
    ...(options.slackUrl ? { annotations: { [SLACK_URL_ANNOTATION]: options.slackUrl } } : {}),
    timings: {
      leaseDurationMs: config.leaseDuration,
      renewDeadlineMs: config.renewDeadline,
      retryPeriodMs: config.retryPeriod,
    },
    now: () => performance.now(),
    onStartedLeading: () => {
      log.info(
        { identity, lease: config.leaseName },
        'leading: this serve ticks, dispatches and answers Slack',
      );
      options.onStartedLeading();
    },
    onStoppedLeading: (why) => {
      log.warn({ identity, lease: config.leaseName, why }, 'not leading: standing by');
      options.onStoppedLeading(why);
    },
    onStandBy: options.onStandBy,
    onError: (error) => {
      log.warn({ err: error, identity }, 'leader election: the Lease was not read or written');
      options.onError(error);
    },
  });
  return {
    ...leadership,
    description: `leader election: lease ${options.namespace}/${config.leaseName} as ${identity}`,
    async relayTarget() {
      const late = sleep(LEASE_READ_MS, undefined, { ref: false }).then(() => {
        throw new Error(`not read in ${LEASE_READ_MS} ms`);
      });
      try {
        const lease = await Promise.race([
          leases.getLease(options.namespace, config.leaseName),
          late,
        ]);
        return relayTarget(lease, identity);
      } catch (error) {
        return { kind: 'none', why: `the Lease was not read: ${messageOf(error)}` };
      }
    },
  };
}

/** POD_NAME from the Downward API where the chart sets it; a pod's hostname is its name anyway. */
export const serveIdentity = (): string =>
  `${process.env['POD_NAME'] || hostname()}_${randomBytes(4).toString('hex')}`;
