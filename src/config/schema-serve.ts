/**
 * `serve:` — where `kubemaint serve` listens: the ops endpoint (/healthz, /readyz, /metrics, and
 * /status when the status page is on) and the Slack HTTP receiver (/slack/events). A host left
 * unset is decided at start (config/listen.ts): this machine only outside a cluster, every
 * interface inside one.
 */
import { z } from 'zod';
import { DEFAULT_ELECTION, timingsProblem } from '../core/leader-election.js';
import { dnsLabel, duration, int, listenHost } from './fields.js';

const listen = (port: number) =>
  z.strictObject({
    /** Unset: 127.0.0.1, or 0.0.0.0 in a cluster (config/listen.ts). */
    host: listenHost().optional(),
    port: int(0, 65535).default(port),
  });

/**
 * `serve.leaderElection` (issue 32, ADR 0046): with two or more replicas, only the one holding the
 * Lease ticks, dispatches and answers Slack. client-go's timings by default.
 */
const LeaderElectionSchema = z
  .strictObject({
    /** On by default: a second replica, or a pod started before the old one stopped, is harmless. */
    enabled: z.boolean().default(true),
    /** The coordination.k8s.io Lease in kubemaint's namespace. */
    leaseName: dnsLabel('kubemaint-serve-leader').default('kubemaint-serve-leader'),
    leaseDuration: duration().default(DEFAULT_ELECTION.leaseDurationMs),
    renewDeadline: duration().default(DEFAULT_ELECTION.renewDeadlineMs),
    retryPeriod: duration().default(DEFAULT_ELECTION.retryPeriodMs),
  })
  .superRefine((election, ctx) => {
    if (election.retryPeriod < 1_000)
      ctx.addIssue({
        code: 'custom',
        path: ['retryPeriod'],
        message: 'must be at least 1s (each try reads the Lease from the apiserver)',
        params: { hint: 'the default is 2s' },
      });
    const problem = timingsProblem({
      leaseDurationMs: election.leaseDuration,
      renewDeadlineMs: election.renewDeadline,
      retryPeriodMs: election.retryPeriod,
    });
    if (problem)
      ctx.addIssue({
        code: 'custom',
        path: ['renewDeadline'],
        message: problem,
        params: { hint: 'the defaults are leaseDuration 15s, renewDeadline 10s, retryPeriod 2s' },
      });
  });

export type LeaderElectionConfig = z.output<typeof LeaderElectionSchema>;

export const ServeSchema = z.strictObject({
  ops: listen(9090).prefault({}),
  slack: listen(3000).prefault({}),
  /**
   * The read-only status page at `/status` on the ops port. Unset: on with the embedded sim (the
   * demo), off otherwise (compose/status-page.ts).
   */
  statusPage: z.boolean().optional(),
  leaderElection: LeaderElectionSchema.prefault({}),
});
