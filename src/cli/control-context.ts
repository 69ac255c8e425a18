/**
 * What every control command shares: the config (global --config, $KUBEMAINT_CONFIG, ./kubemaint.yaml,
 * else the embedded demo), the cluster (the running demo is found without flags), and who is asking
 * (--as, else the local user). The CLI trusts the local account the way kubectl does: what a person
 * may change in the cluster is the kubeconfig's RBAC; who may approve is the config's approvers.
 */
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import type { Person } from '../core/approval.js';
import type { ControlRuntime } from '../compose.js';
import { CLI_ANYONE } from '../compose/control-settings.js';
import { configPath, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { KubemaintError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';

/** The file kubemaint reads when neither --config nor $KUBEMAINT_CONFIG names one. */
export const CONVENTIONAL_CONFIG = 'kubemaint.yaml';

export interface GlobalOptions {
  config?: string;
  kubeconfig?: string;
  as?: string;
}

export function resolveConfigPath(path: string | undefined): string | undefined {
  return (
    configPath({ path, env: process.env }) ??
    (existsSync(CONVENTIONAL_CONFIG) ? CONVENTIONAL_CONFIG : undefined)
  );
}

export function loadCliConfig(options: GlobalOptions): Config {
  return loadConfig({ path: resolveConfigPath(options.config), env: process.env });
}

export function globals(command: Command): GlobalOptions {
  return command.opts<GlobalOptions>();
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
      '--as <user>',
      'who you are, for approvals (default: your local user name)',
      (user: string) => {
        // Checked while parsing, before anything connects: a typo never half-does anything.
        cliPerson(user);
        return user;
      },
    );
}

/** Open the control plane for one command, run `work`, and always close what was opened. */
export async function withControl<T>(
  command: Command,
  work: (runtime: ControlRuntime, log: Logger) => Promise<T>,
): Promise<T> {
  const options = globals(command);
  const config = loadCliConfig(options);
  const log = createLogger({ service: 'cli', level: process.env['KUBEMAINT_LOG_LEVEL'] ?? 'warn' });
  // Loaded when a command runs, not when the CLI starts: `--help` and bad flags stay fast.
  const { openControl } = await import('../compose.js');
  const runtime = await openControl(config, {
    log,
    sim: 'attach',
    ...(options.kubeconfig ? { kubeconfigPath: options.kubeconfig } : {}),
  });
  try {
    return await work(runtime, log);
  } finally {
    await runtime.close();
  }
}

const CLI_USER = /^[a-z_][a-z0-9_.-]{0,31}\$?$/;

/** The person behind a CLI command: `cli:<user>`, always in the group that `approvers.cli: ["*"]` admits. */
export function cliPerson(as: string | undefined): Person {
  const user = as ?? localUser();
  if (!CLI_USER.test(user)) {
    throw new KubemaintError(
      'usage',
      `--as ${JSON.stringify(user.slice(0, 40))} is not a local user name`,
      {
        hint: 'e.g. --as alice (lowercase letters, digits, . _ -); approvers are listed in approval.approvers.cli',
      },
    );
  }
  return { kind: 'person', id: `cli:${user}`, groups: [CLI_ANYONE] };
}

function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? 'unknown';
  }
}
