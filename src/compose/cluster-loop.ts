/**
 * One cluster's loop in `serve` (one cluster is a list of one, ADR 0054): its own leader election,
 * tick loop, watch, fleet reads and pause echo, on its own connection. Nothing here waits for
 * another cluster, so one that is slow or unreachable delays no other; with several it is said once
 * when it goes (and when it comes back), counted in its `cluster`-labelled tick errors, and shown as
 * unreachable on the status page.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createFleetRefresher, type FleetRefresher } from '../app/control/fleet-refresh.js';
import { readFleetView, type FleetView } from '../app/control/fleet-view.js';
import { createTickLoop, type TickLoop } from '../app/control/loop.js';
import { runTick, scannedBound, type ScannedBound, type TickReport } from '../app/control/tick.js';
import { tickReadiness, type TickReadiness } from '../adapters/http/readiness.js';
import { isKubeError } from '../adapters/kube/errors.js';
import { apiRefusal } from '../adapters/kube/refusal.js';
import { watchForChanges, PAUSE_STREAM } from '../adapters/kube/watch-trigger.js';
import { timeTick } from '../adapters/metrics/observe.js';
import type { Metrics } from '../adapters/metrics/registry.js';
import type { Logger } from '../log.js';
import type { ClusterRuntime } from './clusters.js';
import { pauseEcho } from './pause-echo.js';
import { serveLeadership, type ServeLeadership } from './serve-leadership.js';
import { messageOf } from '../error-message.js';

export interface ClusterLoop {
  readonly name: string;
  readonly runtime: ClusterRuntime;
  readonly loop: TickLoop;
  readonly fleet: FleetRefresher;
  readonly readiness: TickReadiness;
  readonly leadership: ServeLeadership;
  /** This process holds the cluster's leader Lease (or election is off): it may tick and decide. */
  acting(): boolean;
  /** A tick now, if this process is acting for the cluster (a standby's kicks are dropped). */
  kick(options?: { skewScan?: boolean }): void;
  /** Why the cluster cannot be worked now (its last tick or read failed); undefined when fine. */
  unreachable(): string | undefined;
  /** The apiserver bound of this process's last skew scan (the status page's line); none before one. */
  bound(): ScannedBound | undefined;
  stop(): Promise<void>;
}

/**
 * Reads of one cluster's fleet are at least this far apart: a burst of watch-driven ticks (a drain
 * evicting a hundred pods) costs a few reads, and the page and /metrics are seconds behind at most.
 */
const FLEET_READ_INTERVAL_MS = 2_000;

/**
 * How a failed tick is logged. Every write is conditional (DESIGN §4), so a 409 Conflict is another
 * writer (a person's approval, the executor) getting there first: expected, and the next tick reads
 * the object again. A warning, not an error: alerting on error logs must not page on a race.
 */
export function tickFailure(error: unknown): { level: 'warn' | 'error'; message: string } {
  if (isKubeError(error, 'conflict'))
    return {
      level: 'warn',
      message: 'tick lost a write race (409 Conflict); the next one reads the object again',
    };
  // Leadership ended mid-tick: the rest of it is the next leader's, from what the cluster says.
  if (isKubeError(error, 'fenced'))
    return { level: 'warn', message: 'tick stopped: this serve no longer leads' };
  return { level: 'error', message: 'tick failed; the next one starts from what the cluster says' };
}

export function startClusterLoop(
  runtime: ClusterRuntime,
  options: {
    metrics: Metrics;
    log: Logger;
    out: (text: string) => void;
    /** The config lists clusters: logs, console lines and metrics name this one. */
    several: boolean;
    /** This process's candidate name in every cluster's election (serve-leadership.ts). */
    identity: string;
    /** This process's Slack receiver as another replica reaches it: written on the Lease it holds. */
    slackUrl?: string;
    /** Read every node and the history too (the status page draws them). */
    everything: boolean;
    /** A view was read (or a read failed): the page and the metrics show it. */
    changed: (view: FleetView | undefined) => void;
    /** This process started or stopped leading this cluster (Socket Mode follows it). */
    leading: (leading: boolean) => void;
  },
): ClusterLoop {
  const { deps, name } = runtime;
  const { several } = options;
  const log = several ? options.log.child({ cluster: name }) : options.log;
  // A refused TLS handshake or a 401 makes /readyz fail at once (readiness.ts).
  const readiness = tickReadiness({ clock: { now: () => new Date() }, refusal: apiRefusal });
  let failing: string | undefined;
  let bound: ScannedBound | undefined;
  const state = (why: string | undefined) => {
    if (several && why !== undefined && failing === undefined)
      log.warn({ why }, 'cluster unreachable; the other clusters go on');
    if (several && why === undefined && failing !== undefined) log.info('cluster reachable again');
    failing = why;
  };
  const fleet = createFleetRefresher({
    read: () => readFleetView(deps, { allNodes: options.everything, history: options.everything }),
    onView: (view) => {
      state(undefined);
      options.changed(view);
    },
    onError: (error) => {
      if (!several) log.warn({ err: error }, 'fleet view not read; metrics keep the last one');
      state(messageOf(error));
      options.changed(undefined);
    },
    now: () => new Date(),
    sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
    minIntervalMs: FLEET_READ_INTERVAL_MS,
  });
  // Set just below: the loop exists first, so that starting to lead can kick it.
  const led: { by?: ServeLeadership } = {};
  const acting = () => led.by?.acting() === true;
  const loop = createTickLoop({
    // Checked again as the tick starts: a kick queued while leading may run after leadership ended.
    tick: (o) =>
      acting()
        ? timeTick(options.metrics, deps.clock, () => runTick(deps, o), several ? name : undefined)
        : Promise.resolve(standingBy(deps.clock.now())),
    now: () => deps.clock.now(),
    onTick: (report, ms) => {
      // A standby's "tick" reads nothing: it proves no contact, so it neither clears an unreachable
      // cluster nor counts for readiness (the Lease's renewals do that).
      if (STOOD_BY.has(report)) return;
      readiness.record({ ok: true });
      state(undefined);
      bound = scannedBound(report) ?? bound;
      fleet.refresh();
      log.debug({ ms, ...report }, 'tick');
      // Rare and worth seeing: objects rewritten at the new storage version (ADR 0051).
      if (report.storage?.length)
        log.info({ storage: report.storage }, 'storage-version migration');
    },
    onError: (error) => {
      readiness.record({ ok: false, error });
      state(messageOf(error));
      // What the failed tick did write is worth showing; a read that fails too is only logged.
      fleet.refresh();
      const failure = tickFailure(error);
      log[failure.level]({ err: error }, failure.message);
    },
  });
  // Each cluster elects on a Lease in itself, the store it guards (ADR 0054).
  const leadership = serveLeadership({
    config: runtime.config.serve.leaderElection,
    client: runtime.client,
    namespace: deps.settings.namespace,
    identity: options.identity,
    ...(options.slackUrl ? { slackUrl: options.slackUrl } : {}),
    log,
    onStartedLeading: () => {
      // A new leader scans everything first, as a freshly started serve does.
      loop.kick({ skewScan: true });
      options.leading(true);
    },
    onStoppedLeading: () => options.leading(false),
    onStandBy: () => readiness.record({ ok: true }),
    // A cluster that refuses serve's credentials refuses its Lease too, ticking or not.
    onError: (error) => readiness.contact({ ok: false, error }),
  });
  led.by = leadership;
  // Asked before every write of this cluster's deps, retries included: a tick that began while
  // leading stops at its next write once leadership ends (write-fence.ts, ADR 0060).
  runtime.writes.holdWhen(() =>
    acting() ? undefined : 'this serve does not hold the leader Lease now',
  );
  const kick = (o?: { skewScan?: boolean }) => {
    if (acting()) loop.kick(o);
  };
  // `pause` and `resume` from the CLI are said here too, as they turn.
  const pause = pauseEcho(
    deps.cluster,
    several ? (t) => options.out(`[${name}] ${t}`) : options.out,
    log,
  );
  // Between scheduled ticks, a change to a node with a request, a marked node or one of our Jobs
  // wakes the loop: verification and slot hand-off take seconds, not a minute.
  const watch = watchForChanges(runtime.connection.kubeConfig, {
    namespace: deps.settings.namespace,
    rebootLabel: deps.settings.detection.rebootLabel,
    log: log.child({ component: 'watch' }),
    onContact: (outcome) => readiness.contact(outcome),
    onChange: (changes) => {
      log.debug({ changes }, 'watch: changed');
      kick();
      if (changes.some((c) => c.startsWith(`${PAUSE_STREAM}:`))) void pause.check();
    },
  });
  void pause.check();
  return {
    name,
    runtime,
    loop,
    fleet,
    readiness,
    leadership,
    acting,
    kick,
    unreachable: () => failing,
    bound: () => bound,
    async stop() {
      watch.stop();
      await loop.stop();
      // Released only once the tick in flight has finished: a standby may act as soon as it is.
      await leadership.stop();
      await fleet.stop();
    },
  };
}

/** What a standby's loop reports instead of ticking (a kick queued before leadership ended). */
const standingBy = (now: Date): TickReport => {
  const report: TickReport = {
    at: now.toISOString(),
    reconciled: [],
    dispatched: [],
    proposed: [],
    skipped: ['standing by: another serve holds the leader Lease'],
  };
  STOOD_BY.add(report);
  return report;
};
const STOOD_BY = new WeakSet<TickReport>();
