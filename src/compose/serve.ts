/**
 * What `kubemaint serve` does once its flags are checked (serve.ts): opens the control plane, runs the
 * tick loop on cron and watches, serves the ops endpoints and Slack, and stops gracefully.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import cron from 'node-cron';
import { createFleetRefresher, type FleetRefresher } from '../app/control/fleet-refresh.js';
import { readFleetView } from '../app/control/fleet-view.js';
import { createTickLoop } from '../app/control/loop.js';
import { runTick, type TickReport } from '../app/control/tick.js';
import { consoleNotifier } from '../adapters/console/notifier.js';
import { startOpsServer } from '../adapters/http/ops-server.js';
import { tickReadiness } from '../adapters/http/readiness.js';
import { apiRefusal } from '../adapters/kube/refusal.js';
import { metricsNotifier } from '../adapters/metrics/notifier.js';
import { observeFleet, timeTick } from '../adapters/metrics/observe.js';
import { createMetrics } from '../adapters/metrics/registry.js';
import { openControl, type ControlRuntime } from '../compose.js';
import { createLogger } from '../log.js';
import { PAUSE_STREAM, watchForChanges } from '../adapters/kube/watch-trigger.js';
import { lateSlackNotifier, slackNotifierFor, slackSettingsFor } from '../compose/slack.js';
import type { Config } from '../config/schema.js';
import { serveListen, type ListenFlags } from '../config/listen.js';
import { configWarnings } from '../config/warnings.js';
import { pauseEcho } from './pause-echo.js';
import { everywhere, scanOf, startSlackApp } from './slack-serve.js';
import { cliCommand } from './sim-host.js';
import { serveLeadership, type ServeLeadership } from './serve-leadership.js';
import { composeStatusPage, statusPageEnabled } from './status-page.js';
import { stopSignal } from './stop-signal.js';

export async function runServe(options: {
  /** The validated config (the CLI loaded it; anything refused was refused before this starts). */
  config: Config;
  listen: ListenFlags;
  /** A kubeconfig file that wins over the config's cluster (the CLI's --kubeconfig). */
  kubeconfigPath?: string;
  /** Where the ready line and the demo's help go (the CLI's stdout). */
  out: (text: string) => void;
  /** `--status-page` / `--no-status-page`: wins over `serve.statusPage`. */
  statusPage?: boolean;
}): Promise<void> {
  const { config, out } = options;
  const listen = serveListen(config, process.env, options.listen);
  const level = process.env['KUBEMAINT_LOG_LEVEL'] ?? 'info';
  const log = createLogger({ service: 'serve', level });
  for (const warning of configWarnings(config)) log.warn(warning);
  const metrics = createMetrics({ processMetrics: true });
  const readiness = tickReadiness({ clock: { now: () => new Date() }, refusal: apiRefusal });
  const pageOn = statusPageEnabled(config, options.statusPage);
  // Set once the control plane is open; the page says it is reading the cluster until then.
  const opened: {
    fleet?: FleetRefresher;
    deps?: Pick<ControlRuntime['deps'], 'settings' | 'clock'>;
  } = {};
  const page = pageOn
    ? composeStatusPage({
        current: () => {
          const view = opened.fleet?.latest();
          return view && opened.deps ? { view, settings: opened.deps.settings } : undefined;
        },
        // The control plane's clock (the sim's may be scaled): the page's now is the view's.
        now: () => opened.deps?.clock.now() ?? new Date(),
      })
    : undefined;
  // The ops port first: if it is taken, nothing else has started yet.
  const ops = await startOpsServer({
    ...listen.ops,
    metrics,
    ready: () => readiness.ready(),
    ...(page ? { page } : {}),
  });
  const slackOut = lateSlackNotifier();
  // The commands the console suggests, as they are typed here (a checkout, or the installed package).
  const cli = cliCommand();
  const runtime = await openControl(config, {
    log,
    sim: 'start',
    ...(options.kubeconfigPath ? { kubeconfigPath: options.kubeconfigPath } : {}),
    notifiers: [consoleNotifier(undefined, cli), metricsNotifier(metrics), slackOut.notifier],
  }).catch(async (error: unknown) => {
    await ops.close();
    throw error;
  });
  const { deps } = runtime;
  opened.deps = deps;
  // One read of the fleet after every tick: /metrics and the status page show it, as `kubemaint
  // status` shows its own read, so they agree (issue 19). Every node and request only for the page.
  const fleet = createFleetRefresher({
    read: () => readFleetView(deps, { allNodes: pageOn, history: pageOn }),
    onView: (view) => {
      observeFleet(metrics, view);
      page?.changed();
    },
    onError: (error) => log.warn({ err: error }, 'fleet view not read; metrics keep the last one'),
    now: () => new Date(),
    sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
    minIntervalMs: FLEET_READ_INTERVAL_MS,
  });
  opened.fleet = fleet;
  const slackNotifier = slackNotifierFor(config, deps, {
    log,
    slackApiUrl: process.env['SLACK_API_URL'],
  });
  if (slackNotifier) slackOut.attach(slackNotifier);
  const startSlack = () =>
    startSlackApp(
      config,
      {
        deps,
        settings: slackSettingsFor(config, deps.settings.cluster),
        scan: scanOf(deps),
      },
      log,
      listen.slack,
    );
  // Socket Mode is one connection Slack sends every event to: only the leader holds it. An HTTP
  // receiver answers on every replica: the Service hands each click to one pod, which records the
  // decision in the cluster, where only the leader's tick acts on it (ADR 0046).
  const slackFollowsLead =
    config.serve.leaderElection.enabled && config.secrets.appToken !== undefined;
  let slack: Awaited<ReturnType<typeof startSlackApp>> = slackFollowsLead
    ? {}
    : await startSlack().catch(async (error: unknown) => {
        await Promise.all([ops.close(), runtime.close()]);
        throw error;
      });
  let slackTurn = Promise.resolve();
  const slackWhileLeading = (leading: boolean) => {
    if (!slackFollowsLead) return;
    slackTurn = slackTurn.then(async () => {
      if (leading && !slack.app)
        slack = await startSlack().catch((error: unknown) => {
          // The message only: a Slack client's error object can carry the request and its token.
          log.error(
            { why: error instanceof Error ? error.message : String(error) },
            'Slack Socket Mode did not start; the next leadership tries again',
          );
          return {};
        });
      if (!leading && slack.app) {
        await slack.app.stop().catch(() => undefined);
        slack = {};
      }
    });
  };
  // Set just below: the loop exists first, so that starting to lead can kick it.
  const led: { by?: ServeLeadership } = {};
  const acting = () => led.by?.acting() === true;
  const loop = createTickLoop({
    // Checked again as the tick starts: a kick queued while leading may run after leadership ended.
    tick: (o) =>
      acting()
        ? timeTick(metrics, deps.clock, () => runTick(deps, o))
        : Promise.resolve(standingBy(deps.clock.now())),
    now: () => deps.clock.now(),
    onTick: (report, ms) => {
      readiness.record({ ok: true });
      fleet.refresh();
      log.debug({ ms, ...report }, 'tick');
      // Rare and worth seeing: objects rewritten at the new storage version (ADR 0051).
      if (report.storage?.length)
        log.info({ storage: report.storage }, 'storage-version migration');
    },
    onError: (error) => {
      readiness.record({ ok: false, error });
      // What the failed tick did write is worth showing; a read that fails too is only logged.
      fleet.refresh();
      log.error({ err: error }, 'tick failed; the next one starts from what the cluster says');
    },
  });
  const leadership = serveLeadership({
    config: config.serve.leaderElection,
    client: runtime.client,
    namespace: deps.settings.namespace,
    log,
    onStartedLeading: () => {
      // A new leader scans everything first, as a freshly started serve does.
      loop.kick({ skewScan: true });
      slackWhileLeading(true);
    },
    onStoppedLeading: () => slackWhileLeading(false),
    onStandBy: () => readiness.record({ ok: true }),
  });
  led.by = leadership;
  const kick = (options?: { skewScan?: boolean }) => {
    if (acting()) loop.kick(options);
  };
  const every = { timezone: 'UTC', noOverlap: true };
  const tasks = [
    cron.schedule(config.schedules.tick, () => kick(), { ...every, name: 'tick' }),
    cron.schedule(config.schedules.skewScan, () => kick({ skewScan: true }), {
      ...every,
      name: 'skew-scan',
    }),
  ];
  // Between scheduled ticks, a change to a node with a request, a marked node or one of our
  // Jobs wakes the loop: verification and slot hand-off take seconds, not a minute.
  // `pause` and `resume` from the CLI are said here too, as they turn.
  const pause = pauseEcho(deps.cluster, out, log);
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
  const kubeconfig = runtime.connection.kubeconfigPath;
  const stopped = stopSignal();
  out(
    `kubemaint serve ready: cluster=${deps.settings.cluster}` +
      `${kubeconfig ? ` kubeconfig=${kubeconfig}` : ''} ops=${ops.url}${everywhere(ops.host)}` +
      `${page ? ` status=${ops.url}/status` : ''}` +
      `${slack.description ? ` slack=${slack.description}` : ''}` +
      `${slackFollowsLead ? ' slack=socket-mode (while leading)' : ''}` +
      `${leadership.description ? ` ${leadership.description}` : ''}\n`,
  );
  if (runtime.connection.sim)
    out(demoHelp(kubeconfig ?? '', page ? `${ops.url}/status` : undefined, cli));
  await stopped;
  out('kubemaint serve: stopping (the tick in flight finishes first)\n');
  for (const task of tasks) await task.stop();
  watch.stop();
  slackWhileLeading(false);
  await slackTurn;
  await slack.app?.stop();
  await loop.stop();
  // Released only once the tick in flight has finished: a standby may act as soon as it is.
  await leadership.stop();
  await fleet.stop();
  await slackNotifier?.flush(5_000);
  await ops.close();
  await runtime.close();
}

/**
 * Reads of the fleet are at least this far apart: a burst of watch-driven ticks (a drain evicting a
 * hundred pods) costs a few reads, and the page and /metrics are still seconds behind at most.
 */
const FLEET_READ_INTERVAL_MS = 2_000;

/** What a standby's loop reports instead of ticking (a kick queued before leadership ended). */
const standingBy = (now: Date): TickReport => ({
  at: now.toISOString(),
  reconciled: [],
  dispatched: [],
  proposed: [],
  skipped: ['standing by: another serve holds the leader Lease'],
});

const demoHelp = (kubeconfig: string, statusUrl: string | undefined, cli: string): string =>
  '\nThe embedded demo cluster is running. In another terminal, in this folder:\n' +
  `  ${`${cli} status`.padEnd(38)}what is proposed, and why\n` +
  `  ${`${cli} approve <request id>`.padEnd(38)}approve one; watch it drain, reboot and come back here\n` +
  `  kubectl --kubeconfig ${kubeconfig} get nodes -L kubemaint.io/state\n` +
  (statusUrl ? `The maintenance timeline, live: open ${statusUrl} in a browser.\n` : '') +
  'Stop with Ctrl-C.\n\n';
