/**
 * `serve.leaderElection` wired for one cluster of a serve process (ADR 0046, 0054): the election on
 * the Lease in that cluster's kubemaint namespace, under this process's identity (the pod's name and
 * a random suffix, as client-go adds one, so a restarted pod is a new candidate; one identity for
 * every cluster the process works), and an always-acting stand-in when it is off.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { startLeadership, type Leadership } from '../app/control/leadership.js';
import { kubeLeasesPort } from '../adapters/kube/leases.js';
import { createKubeClient, type KubeClient } from '../adapters/kube/client.js';
import { DEFAULT_RETRY } from '../adapters/kube/retry.js';
import type { LeaderElectionConfig } from '../config/schema-serve.js';
import type { Logger } from '../log.js';

export interface ServeLeadership extends Leadership {
  /** For the ready line: `leader election: lease NS/NAME as IDENTITY`, or undefined when off. */
  description?: string;
}

export function serveLeadership(options: {
  config: LeaderElectionConfig;
  client: KubeClient;
  namespace: string;
  /** serveIdentity(), once per process. */
  identity: string;
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
    return { acting: () => true, stop: () => Promise.resolve() };
  }
  const leadership = startLeadership({
    // One try a call: the election tries again every retryPeriod itself, and a leader must not
    // spend its renew deadline backing off inside a single renewal.
    leases: kubeLeasesPort(
      createKubeClient(options.client.config, { ...DEFAULT_RETRY, attempts: 1 }),
    ),
    namespace: options.namespace,
    leaseName: config.leaseName,
    identity,
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
  };
}

/** POD_NAME from the Downward API where the chart sets it; a pod's hostname is its name anyway. */
export const serveIdentity = (): string =>
  `${process.env['POD_NAME'] || hostname()}_${randomBytes(4).toString('hex')}`;
