/**
 * What `kubemaint serve` does once its flags are checked (cli/commands/serve.ts), for one cluster
 * or every cluster of `clusters:` (ADR 0026) alike: one cluster is a list of one (ADR 0054). One
 * control plane per cluster (clusters.ts), each worked by a loop of its own with its own leader
 * election (cluster-loop.ts) on the shared schedule; one ops port (metrics, whose series carry a
 * `cluster` label when the config lists clusters; the status page, a section per listed cluster;
 * ready while any cluster is worked, so one unreachable cluster does not take the others' Slack
 * receiver out of its Service); one Slack app; and a graceful stop.
 */
import cron from 'node-cron';
import type { FleetView } from '../app/control/fleet-view.js';
import { consoleNotifier } from '../adapters/console/notifier.js';
import { startOpsServer } from '../adapters/http/ops-server.js';
import { metricsNotifier } from '../adapters/metrics/notifier.js';
import { observeFleet, observeFleets } from '../adapters/metrics/observe.js';
import { createMetrics } from '../adapters/metrics/registry.js';
import type { SlackServed } from '../adapters/slack/app.js';
import type { SlackStandby } from '../adapters/slack/standby-gate.js';
import type { Config } from '../config/schema.js';
import { serveListen, type ListenFlags } from '../config/listen.js';
import { configWarnings } from '../config/warnings.js';
import { clusterConfigs } from '../config/cluster-configs.js';
import { createLogger, type Logger } from '../log.js';
import { startClusterLoop, type ClusterLoop } from './cluster-loop.js';
import { openClusters, type ClusterRuntime, type ClusterSet } from './clusters.js';
import { serveIdentity } from './serve-leadership.js';
import { readyLine } from './serve-ready-line.js';
import { readiness } from './serve-readiness.js';
import { startServeSlack } from './serve-slack.js';
import { cliCommand } from './sim-host.js';
import { lateSlackNotifier, slackNotifierFor, slackSettingsFor } from './slack.js';
import { scanOf } from './slack-serve.js';
import { composeServePage, statusPageEnabled } from './status-page.js';
import { stopSignal } from './stop-signal.js';

export interface ServeOptions {
  /** The validated config (the CLI loaded it; anything refused was refused before this starts). */
  config: Config;
  listen: ListenFlags;
  /** A kubeconfig file that wins over the config's one cluster (the CLI's --kubeconfig). */
  kubeconfigPath?: string;
  /** Where the ready line, prompts and the demo's help go (the CLI's stdout). */
  out: (text: string) => void;
  /** `--status-page` / `--no-status-page`: wins over `serve.statusPage`. */
  statusPage?: boolean;
  /** Where serve's logs go (tests); stdout as JSON lines (or text) otherwise. */
  log?: Logger;
}

export interface RunningServe {
  clusters: ClusterSet;
  loops: readonly ClusterLoop[];
  opsUrl: string;
  /** Stop as SIGTERM does: the ticks in flight finish first. */
  stop(): Promise<void>;
}

export async function runServe(options: ServeOptions): Promise<void> {
  // Taken before the ready line is printed (stopSignal says why); one during start-up stops serve
  // as soon as it has started.
  const stopped = stopSignal();
  const running = await startServe(options);
  await stopped;
  options.out(
    running.clusters.several
      ? 'kubemaint serve: stopping (the ticks in flight finish first)\n'
      : 'kubemaint serve: stopping (the tick in flight finishes first)\n',
  );
  await running.stop();
}

export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const { config, out } = options;
  const several = config.clusters !== undefined;
  const listen = serveListen(config, process.env, options.listen);
  const log =
    options.log ??
    createLogger({ service: 'serve', level: process.env['KUBEMAINT_LOG_LEVEL'] ?? 'info' });
  // Each cluster's own approvers and slots are checked as a one-cluster file's would be.
  for (const one of clusterConfigs(config))
    for (const warning of configWarnings(one))
      if (several) log.warn({ cluster: one.cluster.name }, warning);
      else log.warn(warning);
  const metrics = createMetrics({ processMetrics: true, clusters: several });
  const loops: ClusterLoop[] = [];
  const views = new Map<string, FleetView>();
  const pageOn = statusPageEnabled(config, options.statusPage);
  // Empty until the clusters are open: the page says it is reading the cluster until then.
  const page = pageOn
    ? composeServePage(several, () =>
        loops.map((l) => {
          const view = views.get(l.name);
          const unreachable = several ? l.unreachable() : undefined;
          const bound = l.bound();
          return {
            cluster: l.name,
            settings: l.runtime.deps.settings,
            clock: l.runtime.deps.clock,
            ...(view ? { view } : {}),
            ...(bound ? { bound } : {}),
            ...(unreachable !== undefined ? { unreachable } : {}),
          };
        }),
      )
    : undefined;
  // The ops port first: if it is taken, nothing else has started yet.
  const ops = await startOpsServer({
    ...listen.ops,
    metrics,
    ready: () => readiness(loops, several),
    ...(page ? { page } : {}),
  });
  // The commands the console suggests, as they are typed here (a checkout, or the installed package).
  const cli = cliCommand();
  // In the order of the clusters: each one's Slack notifier is attached once its deps exist.
  const slackOut: ReturnType<typeof lateSlackNotifier>[] = [];
  const clusters = await openClusters(config, {
    log,
    sim: 'start',
    watchNodes: true,
    ...(options.kubeconfigPath ? { kubeconfigPath: options.kubeconfigPath } : {}),
    notifiersFor: () => {
      const late = lateSlackNotifier();
      slackOut.push(late);
      return [
        consoleNotifier(out, cli, { several }),
        metricsNotifier(metrics, { cluster: several }),
        late.notifier,
      ];
    },
  }).catch(async (error: unknown) => {
    await ops.close();
    throw error;
  });
  // Each cluster's prompts go to its own channel (`clusters[].slack.channel`, else slack.channel);
  // one Bolt app serves every cluster's buttons and /maint, each routed to its cluster.
  const notifiers = clusters.runtimes.map((runtime, i) => {
    const notifier = slackNotifierFor(runtime.config, runtime.deps, {
      log,
      slackApiUrl: process.env['SLACK_API_URL'],
      several,
    });
    if (notifier) slackOut[i]?.attach(notifier);
    return notifier;
  });
  const identity = serveIdentity();
  const slack = await startServeSlack(
    config,
    slackServed(clusters.runtimes, several),
    log,
    listen.slack,
    slackStandby(identity, loops),
  ).catch(async (error: unknown) => {
    await Promise.all([ops.close(), clusters.close()]);
    throw error;
  });
  for (const runtime of clusters.runtimes) {
    // Every cluster's error counter from 0, as one cluster's is: a rate needs a series to start.
    if (several)
      metrics.record([
        { name: 'kubemaint_tick_errors_total', labels: { cluster: runtime.name }, value: 0 },
      ]);
    loops.push(
      startClusterLoop(runtime, {
        metrics,
        log,
        out,
        several,
        identity,
        ...(slack.url ? { slackUrl: slack.url } : {}),
        everything: pageOn,
        changed: (view) => {
          if (view) views.set(runtime.name, view);
          if (several) observeFleets(metrics, [...views.values()]);
          else if (view) observeFleet(metrics, view);
          page?.changed();
        },
        leading: (leading) => slack.leading(runtime.name, leading),
      }),
    );
  }
  const kickAll = (o?: { skewScan: boolean }) => loops.forEach((l) => l.kick(o));
  const every = { timezone: 'UTC', noOverlap: true };
  const tasks = [
    cron.schedule(config.schedules.tick, () => kickAll(), { ...every, name: 'tick' }),
    cron.schedule(config.schedules.skewScan, () => kickAll({ skewScan: true }), {
      ...every,
      name: 'skew-scan',
    }),
  ];
  out(
    readyLine({
      clusters,
      loops,
      opsUrl: ops.url,
      opsHost: ops.host,
      ...(page ? { statusUrl: `${ops.url}/status` } : {}),
      slack: slack.description,
      cli,
    }),
  );
  return {
    clusters,
    loops,
    opsUrl: ops.url,
    async stop() {
      for (const task of tasks) await task.stop();
      await slack.stop();
      await Promise.all(loops.map((l) => l.stop()));
      await Promise.all(notifiers.map((n) => n?.flush(5_000) ?? Promise.resolve()));
      await ops.close();
      await clusters.close();
    },
  };
}

/**
 * The Slack app's view of leadership (ADR 0054): the loops are started after the receiver is, so a
 * request in between finds no loop, is acted for by nobody and answered "try again".
 */
function slackStandby(identity: string, loops: readonly ClusterLoop[]): SlackStandby {
  const loopOf = (cluster: string) => loops.find((l) => l.name === cluster);
  return {
    identity,
    acting: (cluster) => loopOf(cluster)?.acting() === true,
    relayTarget: (cluster) =>
      loopOf(cluster)?.leadership.relayTarget() ??
      Promise.resolve({ kind: 'none', why: 'serve is starting' }),
  };
}

/** One cluster's Slack side as a one-cluster app, else every cluster's, each button naming its own. */
function slackServed(runtimes: readonly ClusterRuntime[], several: boolean): SlackServed {
  const each = runtimes.map((r) => ({
    deps: r.deps,
    settings: slackSettingsFor(r.config, r.name),
    scan: scanOf(r.deps),
  }));
  return several ? { clusters: each } : each[0]!;
}
