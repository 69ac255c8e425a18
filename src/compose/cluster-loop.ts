/**
 * One cluster's loop in a serve of several clusters (issue 22): its own tick loop, watch, fleet
 * reads and pause echo, on its own connection. Nothing here waits for another cluster, so one that
 * is slow or unreachable delays no other; it is said once when it goes (and when it comes back),
 * counted in its `cluster`-labelled tick errors, and shown as unreachable on the status page.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createFleetRefresher, type FleetRefresher } from '../app/control/fleet-refresh.js';
import { readFleetView, type FleetView } from '../app/control/fleet-view.js';
import { createTickLoop, type TickLoop } from '../app/control/loop.js';
import { runTick } from '../app/control/tick.js';
import { tickReadiness, type TickReadiness } from '../adapters/http/readiness.js';
import { apiRefusal } from '../adapters/kube/refusal.js';
import { watchForChanges, PAUSE_STREAM } from '../adapters/kube/watch-trigger.js';
import { timeTick } from '../adapters/metrics/observe.js';
import type { Metrics } from '../adapters/metrics/registry.js';
import type { Logger } from '../log.js';
import type { ClusterRuntime } from './clusters.js';
import { pauseEcho } from './pause-echo.js';

export interface ClusterLoop {
  readonly name: string;
  readonly runtime: ClusterRuntime;
  readonly loop: TickLoop;
  readonly fleet: FleetRefresher;
  readonly readiness: TickReadiness;
  /** Why the cluster cannot be worked now (its last tick or read failed); undefined when fine. */
  unreachable(): string | undefined;
  stop(): Promise<void>;
}

/** Reads of one cluster's fleet are at least this far apart (as serve.ts's single cluster). */
const FLEET_READ_INTERVAL_MS = 2_000;

export function startClusterLoop(
  runtime: ClusterRuntime,
  options: {
    metrics: Metrics;
    log: Logger;
    out: (text: string) => void;
    /** Read every node and the history too (the status page draws them). */
    everything: boolean;
    /** A view was read (or a read failed): the page and the metrics show it. */
    changed: (view: FleetView | undefined) => void;
  },
): ClusterLoop {
  const { deps, name } = runtime;
  const log = options.log.child({ cluster: name });
  // As one cluster's serve (serve.ts): a refused TLS handshake or a 401 makes /readyz fail at once.
  const readiness = tickReadiness({ clock: { now: () => new Date() }, refusal: apiRefusal });
  let failing: string | undefined;
  const state = (why: string | undefined) => {
    if (why !== undefined && failing === undefined)
      log.warn({ why }, 'cluster unreachable; the other clusters go on');
    if (why === undefined && failing !== undefined) log.info('cluster reachable again');
    failing = why;
  };
  const fleet = createFleetRefresher({
    read: () => readFleetView(deps, { allNodes: options.everything, history: options.everything }),
    onView: (view) => {
      state(undefined);
      options.changed(view);
    },
    onError: (error) => {
      state(messageOf(error));
      options.changed(undefined);
    },
    now: () => new Date(),
    sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
    minIntervalMs: FLEET_READ_INTERVAL_MS,
  });
  const loop = createTickLoop({
    tick: (o) => timeTick(options.metrics, deps.clock, () => runTick(deps, o), name),
    now: () => deps.clock.now(),
    onTick: (report, ms) => {
      readiness.record({ ok: true });
      state(undefined);
      fleet.refresh();
      log.debug({ ms, ...report }, 'tick');
      // Rare and worth seeing: objects rewritten at the new storage version (ADR 0051).
      if (report.storage?.length)
        log.info({ storage: report.storage }, 'storage-version migration');
    },
    onError: (error) => {
      readiness.record({ ok: false, error });
      state(messageOf(error));
      fleet.refresh();
      log.error({ err: error }, 'tick failed; the next one starts from what the cluster says');
    },
  });
  const pause = pauseEcho(deps.cluster, (text) => options.out(`[${name}] ${text}`), log);
  const watch = watchForChanges(runtime.connection.kubeConfig, {
    namespace: deps.settings.namespace,
    rebootLabel: deps.settings.detection.rebootLabel,
    log: log.child({ component: 'watch' }),
    onContact: (outcome) => readiness.contact(outcome),
    onChange: (changes) => {
      loop.kick();
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
    unreachable: () => failing,
    async stop() {
      watch.stop();
      await loop.stop();
      await fleet.stop();
    },
  };
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
