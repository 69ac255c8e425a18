/**
 * `kubemaint serve`: the control plane as a long-running process (the container of infra/k8s, and the
 * demo of `npm start`). Ticks on the config's cron schedule (UTC, never overlapping), a skew scan on
 * its own schedule, an extra tick whenever a watch sees a node or Job change, /healthz /readyz
 * /metrics on the ops port, and on SIGTERM it lets the tick in flight finish before it exits.
 */
import type { Command } from 'commander';
import { KubemaintError } from '../../errors.js';
import { controlCommand, globals } from '../control-context.js';

export function registerServeCommand(program: Command): void {
  controlCommand(program, 'serve')
    .summary('run the control plane (with no config: the embedded demo)')
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
    .action(async (options: { opsPort: string; opsHost: string }, command: Command) => {
      const port = opsPort(options.opsPort);
      // Loaded only for serve: the Slack app, metrics and watches are the heavy part of the CLI.
      const { runServe } = await import('./serve-run.js');
      await runServe({ port, host: options.opsHost, global: globals(command) });
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
