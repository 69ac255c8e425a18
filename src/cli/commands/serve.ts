/**
 * `kubemaint serve`: the control plane as a long-running process (the container of infra/k8s, and the
 * demo of `npm start`). Ticks on the config's cron schedule (UTC, never overlapping), a skew scan on
 * its own schedule, an extra tick whenever a watch sees a node or Job change, /healthz /readyz
 * /metrics (and the status page, /status) on the ops port, and on SIGTERM it lets the tick in flight
 * finish before it exits.
 */
import type { Command } from 'commander';
import { LISTEN_HOST_HINT, isListenHost } from '../../config/fields.js';
import type { ListenFlags } from '../../config/listen.js';
import { KubemaintError } from '../../errors.js';
import { controlCommand, globals, loadCliConfig } from '../control-context.js';
import { chooseCluster, refuseOneKubeconfigForSeveral } from '../cluster-choice.js';
import { out } from '../output.js';

interface ServeFlags {
  opsHost?: string;
  opsPort?: string;
  slackHost?: string;
  slackPort?: string;
  statusPage?: boolean;
}

export function registerServeCommand(program: Command): void {
  controlCommand(program, 'serve')
    .summary('run the control plane (with no config: the embedded demo)')
    .description(
      'run the control plane: tick on a schedule and on every change, print prompts and progress,\n' +
        'serve /healthz /readyz /metrics (and the status page at /status when it is on).\n' +
        'With no config it runs the embedded demo cluster.',
    )
    .option(
      '--ops-port <port>',
      '/healthz, /readyz and /metrics (default: serve.ops.port, 9090; 0: any free port)',
    )
    .option(
      '--ops-host <address>',
      'address of the ops port (default: serve.ops.host, else 127.0.0.1, or 0.0.0.0 in a cluster)',
    )
    .option('--slack-port <port>', 'Slack HTTP receiver (default: $PORT, serve.slack.port, 3000)')
    .option(
      '--slack-host <address>',
      'address of the Slack receiver (default: serve.slack.host, else as --ops-host)',
    )
    .option(
      '--status-page',
      'serve the live maintenance timeline at /status on the ops port (default: serve.statusPage; on in the demo)',
    )
    .option('--no-status-page', 'do not serve it, even in the demo')
    .addHelpText(
      'after',
      '\nWith the demo (no config), open another terminal in this folder and run\n' +
        '  npx kubemaint status             what is proposed and why\n' +
        '  npx kubemaint approve r-…        approve one request\n' +
        '  kubectl --kubeconfig .kubemaint/sim.kubeconfig get nodes -L kubemaint.io/state',
    )
    .action(async (options: ServeFlags, command: Command) => {
      const listen = listenFlags(options);
      // Everything that can be refused is checked before anything starts.
      const global = globals(command);
      const loaded = loadCliConfig(global);
      const page = options.statusPage !== undefined ? { statusPage: options.statusPage } : {};
      // Loaded only for serve: the Slack app, metrics and watches are the heavy part of the CLI.
      const { runServe } = await import('../../compose/serve.js');
      if (loaded.clusters && global.cluster === undefined) {
        refuseOneKubeconfigForSeveral(global.kubeconfig, 'serve');
        await runServe({ config: loaded, listen, out, ...page });
        return;
      }
      // One cluster: the file's, the one --cluster names, or a kubectl context (cluster-choice.ts).
      const chosen = chooseCluster(loaded, global);
      await runServe({
        config: chosen.config,
        listen,
        out,
        ...page,
        ...(chosen.kubeconfigPath ? { kubeconfigPath: chosen.kubeconfigPath } : {}),
      });
    });
}

/** Checked before anything starts: a bad flag is a usage error (exit 2), not a failed listen. */
function listenFlags(options: ServeFlags): ListenFlags {
  return {
    ...(options.opsHost !== undefined ? { opsHost: host('--ops-host', options.opsHost) } : {}),
    ...(options.opsPort !== undefined ? { opsPort: port('--ops-port', options.opsPort) } : {}),
    ...(options.slackHost !== undefined
      ? { slackHost: host('--slack-host', options.slackHost) }
      : {}),
    ...(options.slackPort !== undefined
      ? { slackPort: port('--slack-port', options.slackPort) }
      : {}),
  };
}

function host(flag: string, text: string): string {
  if (isListenHost(text)) return text;
  throw new KubemaintError(
    'usage',
    `${flag} ${JSON.stringify(text)} is not an address to listen on`,
    {
      hint: LISTEN_HOST_HINT,
    },
  );
}

function port(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535 || text.trim() === '') {
    throw new KubemaintError('usage', `${flag} ${JSON.stringify(text)} is not a port`, {
      hint: 'a number from 0 to 65535 (0 picks a free port)',
    });
  }
  return value;
}
