/**
 * `kubemaint serve` with several clusters (`clusters:`, issue 22, ADR 0026): one control plane per
 * cluster (clusters.ts), each worked by a loop of its own (cluster-loop.ts) on the shared
 * schedule; one ops port whose metrics carry a `cluster` label, whose status page has a section
 * per cluster, and which is ready while any cluster is being worked (one unreachable cluster must
 * not take the others' Slack receiver out of its Service). A config without `clusters:` is run by
 * serve.ts, as before.
 */
import cron from 'node-cron';
import type { FleetView } from '../app/control/fleet-view.js';
import { consoleNotifier } from '../adapters/console/notifier.js';
import { startOpsServer } from '../adapters/http/ops-server.js';
import type { Readiness } from '../adapters/http/ops-server.js';
import { metricsNotifier } from '../adapters/metrics/notifier.js';
import { observeFleets } from '../adapters/metrics/observe.js';
import { createMetrics } from '../adapters/metrics/registry.js';
import type { Config } from '../config/schema.js';
import { serveListen, type ListenFlags } from '../config/listen.js';
import { configWarnings } from '../config/warnings.js';
import { clusterConfigs } from '../config/cluster-configs.js';
import { createLogger } from '../log.js';
import { startClusterLoop, type ClusterLoop } from './cluster-loop.js';
import { openClusters, type ClusterSet } from './clusters.js';
import { cliCommand } from './sim-host.js';
import { lateSlackNotifier, slackNotifierFor, slackSettingsFor } from './slack.js';
import { everywhere, scanOf, startSlackApp } from './slack-serve.js';
import { composeClustersStatusPage } from './status-page.js';
import { stopSignal } from './stop-signal.js';

export interface ServeClustersOptions {
  config: Config;
  listen: ListenFlags;
  out: (text: string) => void;
  /** `--status-page` / `--no-status-page`: wins over `serve.statusPage`. */
  statusPage?: boolean;
  /** Where serve's logs go (tests); stdout as JSON lines (or text) otherwise. */
  log?: ReturnType<typeof createLogger>;
}

export interface RunningClusters {
  clusters: ClusterSet;
  loops: readonly ClusterLoop[];
  opsUrl: string;
  /** Stop as SIGTERM does: the ticks in flight finish first. */
  stop(): Promise<void>;
}

export async function runServeClusters(options: ServeClustersOptions): Promise<void> {
  // Taken before the ready line is printed (stopSignal says why); one during start-up stops serve
  // as soon as it has started.
  const stopped = stopSignal();
  const running = await startServeClusters(options);
  await stopped;
  options.out('kubemaint serve: stopping (the ticks in flight finish first)\n');
  await running.stop();
}

export async function startServeClusters(options: ServeClustersOptions): Promise<RunningClusters> {
  const { config, out } = options;
  const listen = serveListen(config, process.env, options.listen);
  const log =
    options.log ??
    createLogger({ service: 'serve', level: process.env['KUBEMAINT_LOG_LEVEL'] ?? 'info' });
  // Each cluster's own approvers and slots are checked as a one-cluster file's would be.
  for (const one of clusterConfigs(config))
    for (const warning of configWarnings(one)) log.warn({ cluster: one.cluster.name }, warning);
  const metrics = createMetrics({ processMetrics: true, clusters: true });
  const loops: ClusterLoop[] = [];
  const views = new Map<string, FleetView>();
  const pageOn =
    options.statusPage ??
    config.serve.statusPage ??
    (config.clusters ?? []).every((e) => e.cluster.type === 'sim');
  const page = pageOn
    ? composeClustersStatusPage({
        current: () =>
          loops.map((l) => {
            const view = views.get(l.name);
            const unreachable = l.unreachable();
            return {
              cluster: l.name,
              settings: l.runtime.deps.settings,
              ...(view ? { view } : {}),
              ...(unreachable !== undefined ? { unreachable } : {}),
            };
          }),
        now: () => new Date(),
      })
    : undefined;
  const ops = await startOpsServer({
    ...listen.ops,
    metrics,
    ready: () => readyWhileAny(loops),
    ...(page ? { page } : {}),
  });
  const cli = cliCommand();
  const slack = new Map<string, ReturnType<typeof lateSlackNotifier>>();
  const clusters = await openClusters(config, {
    log,
    sim: 'start',
    notifiersFor: (one) => {
      const late = lateSlackNotifier();
      slack.set(one.cluster.name ?? '', late);
      return [
        consoleNotifier(out, cli, { several: true }),
        metricsNotifier(metrics, { cluster: true }),
        late.notifier,
      ];
    },
  }).catch(async (error: unknown) => {
    await ops.close();
    throw error;
  });
  // Each cluster's prompts go to its own channel (`clusters[].slack.channel`, else slack.channel);
  // one Bolt app serves every cluster's buttons and /maint, each routed to its cluster.
  const notifiers = clusters.runtimes.map((runtime) => {
    const notifier = slackNotifierFor(runtime.config, runtime.deps, {
      log,
      slackApiUrl: process.env['SLACK_API_URL'],
      several: clusters.several,
    });
    if (notifier) slack.get(runtime.name)?.attach(notifier);
    return notifier;
  });
  const slackApp = await startSlackApp(
    config,
    {
      clusters: clusters.runtimes.map((r) => ({
        deps: r.deps,
        settings: slackSettingsFor(r.config, r.name),
        scan: scanOf(r.deps),
      })),
    },
    log,
    listen.slack,
  ).catch(async (error: unknown) => {
    await Promise.all([ops.close(), clusters.close()]);
    throw error;
  });
  for (const runtime of clusters.runtimes) {
    // Every cluster's error counter from 0, as one cluster's is: a rate needs a series to start.
    metrics.record([
      { name: 'kubemaint_tick_errors_total', labels: { cluster: runtime.name }, value: 0 },
    ]);
    loops.push(
      startClusterLoop(runtime, {
        metrics,
        log,
        out,
        everything: pageOn,
        changed: (view) => {
          if (view) views.set(runtime.name, view);
          observeFleets(metrics, [...views.values()]);
          page?.changed();
        },
      }),
    );
  }
  const kickAll = (o?: { skewScan: boolean }) => loops.forEach((l) => l.loop.kick(o));
  const every = { timezone: 'UTC', noOverlap: true };
  const tasks = [
    cron.schedule(config.schedules.tick, () => kickAll(), { ...every, name: 'tick' }),
    cron.schedule(config.schedules.skewScan, () => kickAll({ skewScan: true }), {
      ...every,
      name: 'skew-scan',
    }),
  ];
  out(
    `kubemaint serve ready: clusters=${clusters.names.join(',')} ops=${ops.url}${everywhere(ops.host)}` +
      `${page ? ` status=${ops.url}/status` : ''}` +
      `${slackApp.description ? ` slack=${slackApp.description}` : ''}\n`,
  );
  for (const runtime of clusters.runtimes) {
    const kubeconfig = runtime.connection.kubeconfigPath;
    if (kubeconfig) out(`  cluster ${runtime.name}: kubeconfig=${kubeconfig}\n`);
  }
  kickAll({ skewScan: true });
  return {
    clusters,
    loops,
    opsUrl: ops.url,
    async stop() {
      for (const task of tasks) await task.stop();
      await slackApp.app?.stop();
      await Promise.all(loops.map((l) => l.stop()));
      await Promise.all(notifiers.map((n) => n?.flush(5_000) ?? Promise.resolve()));
      await ops.close();
      await clusters.close();
    },
  };
}

/** Ready while any cluster is worked; the body names each cluster that is not. */
function readyWhileAny(loops: readonly ClusterLoop[]): Readiness {
  const each = loops.map((l) => ({ name: l.name, ...l.readiness.ready() }));
  const lines = each.map(
    (r) => `${r.name}: ${r.ok ? 'ok' : 'not ready'}${r.why ? `, ${r.why}` : ''}`,
  );
  return { ok: each.some((r) => r.ok), why: lines.join('; ') };
}
