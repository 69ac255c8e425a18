/**
 * `kubemaint serve`: the control plane as a long-running process (the container of infra/k8s, and the
 * demo of `npm start`). Ticks on the config's cron schedule (UTC, never overlapping), a skew scan on
 * its own schedule, an extra tick whenever a watch sees a node or Job change, /healthz /readyz
 * /metrics on the ops port, and on SIGTERM it lets the tick in flight finish before it exits.
 */
import type { Command } from 'commander';
import cron from 'node-cron';
import { createTickLoop } from '../../app/control/loop.js';
import type { NodeView, SlotView } from '../../app/control/ports.js';
import { runTick } from '../../app/control/tick.js';
import { consoleNotifier } from '../../adapters/console/notifier.js';
import { startOpsServer } from '../../adapters/http/ops-server.js';
import { tickReadiness } from '../../adapters/http/readiness.js';
import { metricsNotifier } from '../../adapters/metrics/notifier.js';
import { observeCluster, timeTick } from '../../adapters/metrics/observe.js';
import { createMetrics, type Metrics } from '../../adapters/metrics/registry.js';
import type { ControlSettings } from '../../app/control/settings.js';
import { openControl } from '../../compose.js';
import { KubemaintError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { controlCommand, globals, loadCliConfig } from '../control-context.js';
import { watchForChanges } from '../../adapters/kube/watch-trigger.js';
import { createSlackApp, type SlackApp } from '../../adapters/slack/app.js';
import { findNeeds } from '../../app/control/tick.js';
import { lateSlackNotifier, slackNotifierFor, slackSettingsFor } from '../../compose/slack.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import type { ControlRuntime } from '../../compose.js';
import { scanLines } from '../../../templates/scan.js';

interface Options {
  opsPort: string;
  opsHost: string;
}

export function registerServeCommand(program: Command): void {
  controlCommand(program, 'serve')
    .description(
      'run the control plane: tick on a schedule and on every change, print prompts and progress,\n' +
        'serve /healthz /readyz /metrics. With no config it runs the embedded demo cluster.',
    )
    .option(
      '--ops-port <port>',
      'port of /healthz, /readyz and /metrics (0: any free port)',
      '9090',
    )
    .option('--ops-host <host>', 'interface of the ops port', '0.0.0.0')
    .addHelpText(
      'after',
      '\nWith the demo (no config), open another terminal in this folder and run\n' +
        '  npx kubemaint status             what is proposed and why\n' +
        '  npx kubemaint approve r-…        approve one request\n' +
        '  kubectl --kubeconfig .kubemaint/sim.kubeconfig get nodes -L kubemaint.io/state',
    )
    .action(async (options: Options, command: Command) => {
      const port = opsPort(options.opsPort);
      const global = globals(command);
      const config = loadCliConfig(global);
      const level = process.env['KUBEMAINT_LOG_LEVEL'] ?? 'info';
      const log = createLogger({ service: 'serve', level });
      const metrics = createMetrics({ processMetrics: true });
      const slackOut = lateSlackNotifier();
      const runtime = await openControl(config, {
        log,
        sim: 'start',
        ...(global.kubeconfig ? { kubeconfigPath: global.kubeconfig } : {}),
        notifiers: [consoleNotifier(), metricsNotifier(metrics), slackOut.notifier],
      });
      const { deps } = runtime;
      const slackNotifier = slackNotifierFor(config, deps, {
        log,
        slackApiUrl: process.env['SLACK_API_URL'],
      });
      if (slackNotifier) slackOut.attach(slackNotifier);
      const slack = await startSlack(config, runtime, log);
      const readiness = tickReadiness({ clock: deps.clock });
      const observe = observer(metrics, deps.settings);
      const loop = createTickLoop({
        tick: (o) => timeTick(metrics, deps.clock, () => runTick({ ...deps, observe }, o)),
        now: () => deps.clock.now(),
        onTick: (report, ms) => {
          readiness.record({ ok: true });
          log.debug({ ms, ...report }, 'tick');
        },
        onError: (error) => {
          readiness.record({ ok: false, error });
          log.error({ err: error }, 'tick failed; the next one starts from what the cluster says');
        },
      });
      const ops = await startOpsServer({
        port,
        host: options.opsHost,
        metrics,
        ready: () => readiness.ready(),
      });
      const every = { timezone: 'UTC', noOverlap: true };
      const tasks = [
        cron.schedule(config.schedules.tick, () => loop.kick(), { ...every, name: 'tick' }),
        cron.schedule(config.schedules.skewScan, () => loop.kick({ skewScan: true }), {
          ...every,
          name: 'skew-scan',
        }),
      ];
      // Between scheduled ticks, a change to a node with a request, a marked node or one of our
      // Jobs wakes the loop: verification and slot hand-off take seconds, not a minute.
      const watch = watchForChanges(runtime.connection.kubeConfig, {
        namespace: deps.settings.namespace,
        rebootLabel: deps.settings.detection.rebootLabel,
        log: log.child({ component: 'watch' }),
        onChange: () => loop.kick(),
      });
      const kubeconfig = runtime.connection.kubeconfigPath;
      process.stdout.write(
        `kubemaint serve ready: cluster=${deps.settings.cluster}` +
          `${kubeconfig ? ` kubeconfig=${kubeconfig}` : ''} ops=${ops.url}` +
          `${slack.description ? ` slack=${slack.description}` : ''}\n`,
      );
      if (runtime.connection.sim) process.stdout.write(demoHelp(kubeconfig ?? ''));
      loop.kick({ skewScan: true });
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      process.stdout.write('kubemaint serve: stopping (the tick in flight finishes first)\n');
      for (const task of tasks) await task.stop();
      watch.stop();
      await slack.app?.stop();
      await loop.stop();
      await slackNotifier?.flush(5_000);
      await ops.close();
      await runtime.close();
    });
}

function opsPort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new KubemaintError('usage', `--ops-port ${JSON.stringify(text)} is not a port`, {
      hint: 'a number from 0 to 65535 (0 picks a free port)',
    });
  }
  return port;
}

/** Metrics from what each tick read anyway: slot holders are on the requests, no Lease list needed. */
function observer(metrics: Metrics, settings: ControlSettings) {
  return (nodes: readonly NodeView[]) => {
    const slots: SlotView[] = nodes.flatMap((n) =>
      n.request?.slot && (n.request.state === 'running' || n.request.state === 'verifying')
        ? [{ name: n.request.slot, holder: `${n.name}/${n.request.id}` }]
        : [],
    );
    observeCluster(metrics, nodes, slots, {
      rebootLabel: settings.detection.rebootLabel,
      conditionTypes: settings.detection.conditionTypes,
      concurrency: settings.lock.concurrency,
    });
  };
}

const demoHelp = (kubeconfig: string): string =>
  '\nThe embedded demo cluster is running. In another terminal, in this folder:\n' +
  '  npx kubemaint status                  what is proposed, and why\n' +
  '  npx kubemaint approve <request id>    approve one; watch it drain, reboot and come back here\n' +
  `  kubectl --kubeconfig ${kubeconfig} get nodes -L kubemaint.io/state\n` +
  'Stop with Ctrl-C.\n\n';

/**
 * The Bolt app when Slack credentials are in the environment: Socket Mode with SLACK_APP_TOKEN (no
 * public endpoint needed), else the HTTP receiver on $PORT (default 3000) at /slack/events.
 */
async function startSlack(
  config: Config,
  runtime: ControlRuntime,
  log: Logger,
): Promise<{ app?: SlackApp; description?: string }> {
  const botToken = config.secrets.botToken?.reveal();
  const signingSecret = config.secrets.signingSecret?.reveal();
  if (!botToken || !signingSecret) return {};
  const appToken = config.secrets.appToken?.reveal();
  const port = Number(process.env['PORT'] ?? 3000);
  const { deps } = runtime;
  const app = createSlackApp({
    deps,
    settings: slackSettingsFor(config, deps.settings.cluster),
    botToken,
    signingSecret,
    ...(process.env['SLACK_API_URL'] ? { slackApiUrl: process.env['SLACK_API_URL'] } : {}),
    receiver: appToken ? { kind: 'socket', appToken } : { kind: 'http', port },
    log: log.child({ component: 'slack' }),
    scan: async () => {
      const { nodes, needs, skipped } = await findNeeds(deps, true);
      return scanLines({ nodes: nodes.length, needs, skipped }).join('\n');
    },
  });
  const started = await app.start();
  return {
    app,
    description: appToken ? 'socket-mode' : `http://0.0.0.0:${started.port ?? port}/slack/events`,
  };
}
