/**
 * `kubemaint executor --node NAME --request ID`: what the executor Job runs (DESIGN §3). Settings come
 * from KUBEMAINT_EXECUTOR_SETTINGS (JSON written by the control plane into the Job), else from the
 * config file; the cluster from the in-cluster service account, or --kubeconfig / KUBECONFIG.
 */
import type { Command } from 'commander';
import { parseSettingsJson } from '../../app/executor/settings-json.js';
import type { ExecutorSettings } from '../../app/executor/settings.js';
import { systemClock } from '../../app/executor/system-clock.js';
import { withUpgradeScript } from '../../compose/upgrade-script.js';
import { EXIT } from '../../core/exit-codes.js';
import { logFormatOf } from '../../config/log-format.js';
import { createLogger, useLogFormat, type LogFormat } from '../../log.js';
import { SETTINGS_ENV } from '../../../templates/executor-job.js';
import { out } from '../output.js';

export const EXIT_CODES_HELP = `
Exit codes (the control plane reads the Job's outcome from them):
  ${EXIT.ok}  done: the host command was issued (or had been, by an earlier run)
  ${EXIT.unexpected}  unexpected error (the request says what happened, when it could be written)
  ${EXIT.config}  bad flags or settings: nothing was changed
  ${EXIT.noSlot}  no free slot: nothing was changed, try again later
  ${EXIT.drainBlocked}  drain blocked (PDB, timeout, or an operator chose skip): node given back
  ${EXIT.requestInvalid}  the request is missing, ended, or belongs to another node: nothing was changed`;

/**
 * The settings from the Job's environment, else from the config file. The config's modules (its
 * schema, the defaults it gives) load only when needed: a Job's settings are whole (executor-program.ts).
 */
export async function executorSettings(
  env: NodeJS.ProcessEnv,
  configPath?: string,
  logFormat?: LogFormat,
): Promise<ExecutorSettings> {
  const json = env[SETTINGS_ENV];
  const settings = () => import('../../compose/executor-settings.js');
  // In a Job: the log format came with the Job's environment (templates/executor-job.ts).
  if (json !== undefined && json.trim() !== '')
    return parseSettingsJson(
      json,
      SETTINGS_ENV,
      async () => (await settings()).DEFAULT_EXECUTOR_SETTINGS,
    );
  const [{ loadConfig }, { settingsFromConfig }] = await Promise.all([
    import('../../config/load.js'),
    settings(),
  ]);
  const config = loadConfig({ path: configPath, env });
  useLogFormat(logFormatOf({ flag: logFormat, env, config }));
  return settingsFromConfig(config);
}

interface Options {
  node: string;
  request: string;
  kubeconfig?: string;
  config?: string;
}

export function registerExecutorCommand(program: Command): void {
  program
    .command('executor')
    .description('lock a slot, cordon, drain, then reboot or upgrade this node (what the Job runs)')
    .requiredOption('--node <name>', 'the node to work on (the Job pins its pod there)')
    .requiredOption('--request <id>', 'the request on the node this run serves, e.g. r-7f3a9c')
    .option('--kubeconfig <path>', 'kubeconfig file (default: in-cluster, or $KUBECONFIG)')
    .option('--config <path>', `config file, when ${SETTINGS_ENV} is not set`)
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (options: Options, command: Command) => {
      const env = process.env;
      const { logFormat } = command.optsWithGlobals<{ logFormat?: LogFormat }>();
      const configured = withUpgradeScript(await executorSettings(env, options.config, logFormat));
      const log = createLogger({ service: 'executor' }).child({
        node: options.node,
        request: options.request,
      });
      // The kube SDK and the executor load only when the command runs: a Job's pod starts sooner.
      const [
        { createKubeClient, loadKubeConfig },
        { kubePorts },
        { executorHost },
        { runExecutor },
      ] = await Promise.all([
        import('../../adapters/kube/client.js'),
        import('../../adapters/kube/executor-ports.js'),
        import('../../compose/executor-host.js'),
        import('../../app/executor/run-executor.js'),
      ]);
      // On a simulated node the host is the simulator's, whatever the settings say (ADR 0036).
      const { host, settings, simulated } = executorHost(env, configured);
      if (simulated) {
        log.info(
          { hostEndpoint: simulated },
          "simulated node: host commands go to the simulator's host endpoint (the configured host prefix and commands are not used)",
        );
      }
      const client = createKubeClient(loadKubeConfig(options.kubeconfig));
      const pod = env['POD_NAME']
        ? `${env['POD_NAMESPACE'] ?? 'default'}/${env['POD_NAME']}`
        : undefined;
      const outcome = await runExecutor(
        {
          ...kubePorts(client, log, systemClock, settings.namespace),
          host,
          clock: systemClock,
          log,
        },
        {
          node: options.node,
          requestId: options.request,
          settings,
          ...(pod ? { selfPod: pod } : {}),
          ...(env['POD_NAME'] ? { job: jobOfPod(env['POD_NAME']) } : {}),
        },
      );
      log.info({ exitCode: outcome.exitCode, message: outcome.message }, 'executor finished');
      out(`${outcome.message}\n`);
      process.exitCode = outcome.exitCode;
    });
}

/** A Job's pod is named `<job>-<5 chars>`. */
const jobOfPod = (pod: string): string => pod.replace(/-[a-z0-9]{5}$/, '');
