/**
 * `kubemaint config check [FILE]` validates a config file and prints either a summary or every
 * problem (exit 2); `kubemaint config print-defaults` prints the settings an empty file gets.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { DEMO_CONFIG_SOURCE, defaultsAsYaml } from '../../config/defaults.js';
import { configPath, loadConfig } from '../../config/load.js';
import { summarizeConfig } from '../../config/summary.js';
import { configWarnings } from '../../config/warnings.js';
import { awsCredentialsLines } from '../aws-credentials-line.js';
import { out, err } from '../output.js';

const CONVENTIONAL = 'kubemaint.yaml';

export function registerConfigCommand(program: Command): void {
  const config = program
    .command('config')
    .description(
      'check a kubemaint.yaml, or print the defaults (reference: docs/configuration.md)',
    );

  config
    .command('check')
    .argument('[file]', 'the config file (default: $KUBEMAINT_CONFIG, else ./kubemaint.yaml)')
    .description('validate a config file: print a summary, or every problem and exit 2')
    .action(async (file: string | undefined) => {
      const env = process.env;
      const path =
        configPath({ path: file, env }) ?? (existsSync(CONVENTIONAL) ? CONVENTIONAL : undefined);
      const loaded = loadConfig({ path, env });
      const what = path ?? `no config file given, so ${DEMO_CONFIG_SOURCE}`;
      out(`ok: ${what} is valid (${summarizeConfig(loaded)})\n`);
      const aws = await awsCredentialsLines(loaded, env);
      for (const { line } of aws.filter((a) => a.ok)) out(`${line}\n`);
      const failed = aws.filter((a) => !a.ok).map((a) => a.line);
      for (const warning of [...(loaded.deprecated ?? []), ...configWarnings(loaded), ...failed])
        err(`warning: ${warning}\n`);
    });

  config
    .command('print-defaults')
    .description('print every setting with its default, as YAML that kubemaint accepts')
    .action(() => {
      out(defaultsAsYaml());
    });
}
