/**
 * What every control command shares: the config (global --config, $KUBEMAINT_CONFIG, ./kubemaint.yaml,
 * else the embedded demo), the cluster (the running demo is found without flags), and who is asking
 * (the apiserver's answer for the kubeconfig, or for the user it impersonates with --as, as kubectl
 * does). What a person may change in the cluster is their RBAC; who may approve is the config's
 * approvers; admission binds every request and decision to its author (ADR 0012).
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { Person } from '../core/approval.js';
import type { ControlRuntime } from '../compose.js';
import { kubernetesIdentity } from '../core/identity.js';
import { configPath, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { KubemaintError } from '../errors.js';
import { logFormatOf } from '../config/log-format.js';
import { createLogger, useLogFormat, type LogFormat, type Logger } from '../log.js';
import { err } from './output.js';
import { chooseCluster } from './cluster-choice.js';

/** The file kubemaint reads when neither --config nor $KUBEMAINT_CONFIG names one. */
export const CONVENTIONAL_CONFIG = 'kubemaint.yaml';

export interface GlobalOptions {
  config?: string;
  kubeconfig?: string;
  /** `--cluster NAME`: a cluster of `clusters:`, else a kubectl context (cluster-choice.ts). */
  cluster?: string;
  as?: string;
  /** The program's `--log-format`. */
  logFormat?: LogFormat;
}

export function resolveConfigPath(path: string | undefined): string | undefined {
  return (
    configPath({ path, env: process.env }) ??
    (existsSync(CONVENTIONAL_CONFIG) ? CONVENTIONAL_CONFIG : undefined)
  );
}

/**
 * The config, one line on stderr for each renamed key it still uses (ADR 0016), and its
 * `log.format` for this process unless `--log-format` or `KUBEMAINT_LOG_FORMAT` said otherwise.
 */
export function loadCliConfig(options: GlobalOptions): Config {
  const config = loadConfig({ path: resolveConfigPath(options.config), env: process.env });
  for (const line of config.deprecated ?? []) err(`kubemaint: warning: ${line}\n`);
  useLogFormat(logFormatOf({ flag: options.logFormat, env: process.env, config }));
  return config;
}

export function globals(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/**
 * The options every control command takes. Per command rather than on the program: commander lets a
 * program option swallow a subcommand's option of the same name (the executor's --kubeconfig).
 */
export function controlCommand(program: Command, name: string): Command {
  return program
    .command(name)
    .option(
      '-c, --config <path>',
      'config file (default: $KUBEMAINT_CONFIG, ./kubemaint.yaml, else the demo)',
    )
    .option('--kubeconfig <path>', "use this kubeconfig instead of the config's cluster")
    .option(
      '--cluster <name>',
      'the cluster of clusters: to act on (without that list: a kubectl context); status without it shows every cluster',
    )
    .option(
      '--as <user>',
      'act as this Kubernetes user (kubectl --as: impersonation your RBAC must allow); default: whoever your kubeconfig is',
      impersonationTarget,
    );
}

/**
 * Open the control plane for one command, run `work`, and always close what was opened. `config`:
 * the file as the command already loaded it (loaded here otherwise).
 */
export async function withControl<T>(
  command: Command,
  work: (runtime: ControlRuntime, log: Logger) => Promise<T>,
  config?: Config,
): Promise<T> {
  const options = globals(command);
  const chosen = chooseCluster(config ?? loadCliConfig(options), options);
  const log = createLogger({ service: 'cli', level: process.env['KUBEMAINT_LOG_LEVEL'] ?? 'warn' });
  // Loaded when a command runs, not when the CLI starts: `--help` and bad flags stay fast.
  const { openControl } = await import('../compose.js');
  const runtime = await openControl(chosen.config, {
    log,
    sim: 'attach',
    ...(chosen.kubeconfigPath ? { kubeconfigPath: chosen.kubeconfigPath } : {}),
    ...(options.as ? { impersonate: options.as } : {}),
  });
  try {
    return await work(runtime, log);
  } catch (error) {
    throw asRefusal(error);
  } finally {
    await runtime.close();
  }
}

/**
 * The apiserver refusing the person (401, 403: their RBAC, or admission binding them) is a refusal
 * like kubemaint's own, exit 5, not an unexpected error. Only for the commands people type: the
 * executor's codes mean something else to the control plane.
 */
export function asRefusal(error: unknown): unknown {
  if (!(error instanceof KubemaintError)) return error;
  if ((error as KubemaintError & { kind?: string }).kind !== 'forbidden') return error;
  return new KubemaintError('request_invalid', error.message, {
    ...(error.hint ? { hint: error.hint } : {}),
    cause: error,
  });
}

/** kube-apiserver takes any user name; we refuse only what cannot be one (empty, control characters). */
const KUBERNETES_USER = /^[^\s\p{Cc}][^\p{Cc}]{0,252}$/u;

/** Checked while parsing, before anything connects: a value that cannot be a user name. */
export function impersonationTarget(user: string): string {
  if (KUBERNETES_USER.test(user)) return user;
  throw new KubemaintError(
    'usage',
    `--as ${JSON.stringify(user.slice(0, 40))} is not a user name`,
    {
      hint: 'e.g. --as alice (as kubectl --as: your kubeconfig must be allowed to impersonate them)',
    },
  );
}

/**
 * The person behind a CLI command: whoever the apiserver says the kubeconfig (or its impersonation,
 * --as) authenticates as, with their groups: `k8s:<username>`, groups `k8s:<group>`.
 */
export async function cliPerson(runtime: ControlRuntime): Promise<Person> {
  const { whoAmI } = await import('../adapters/kube/whoami.js');
  const me = await whoAmI(runtime.client);
  if (me.username === '') {
    throw new KubemaintError('unexpected', 'the apiserver did not say who this kubeconfig is', {
      hint: 'check `kubectl auth whoami` with the same kubeconfig',
    });
  }
  return {
    kind: 'person',
    id: kubernetesIdentity(me.username),
    groups: me.groups.map((g) => `k8s:${g}`),
  };
}
