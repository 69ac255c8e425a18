/**
 * `kubemaint windows`: whether maintenance may start now and when that changes, then every window
 * and freeze as configured. Reads only the config (no cluster), so it answers on a laptop before a
 * file is ever deployed.
 */
import type { Command } from 'commander';
import { controlSettingsFromConfig } from '../../compose/control-settings.js';
import { windowStatusLine } from '../../core/window-status.js';
import { describeSchedule } from '../../core/windows.js';
import { KubemaintError } from '../../errors.js';
import { chooseCluster } from '../cluster-choice.js';
import { loadCliConfig } from '../control-context.js';
import { out } from '../output.js';

export function registerWindowsCommand(program: Command): void {
  program
    .command('windows')
    .description('say whether maintenance may start now and when that changes; list the windows')
    .option('--config <path>', 'kubemaint.yaml (default: $KUBEMAINT_CONFIG, else ./kubemaint.yaml)')
    .option(
      '--cluster <name>',
      'the cluster of clusters: whose windows to judge (needed when the config lists several)',
    )
    .option('--at <time>', 'judge another moment instead of now (ISO 8601, e.g. 2026-12-24T03:00Z)')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  kubemaint windows                              open now? next opening? every window\n' +
        '  kubemaint windows --at 2026-12-24T03:00+01:00  rehearse a date, e.g. inside a freeze\n' +
        '  kubemaint windows --cluster prod-eu            one cluster of clusters: (its own windows)\n',
    )
    .action((options: { config?: string; cluster?: string; at?: string }) => {
      const loaded = loadCliConfig({ config: options.config });
      // A cluster of clusters: has windows and freezes of its own over the top-level ones.
      const { config } = chooseCluster(loaded, { cluster: options.cluster });
      const settings = controlSettingsFromConfig(config);
      const now = options.at === undefined ? new Date() : parseMoment(options.at);
      out(
        `${windowStatusLine(settings.schedule, now, settings.timeZone)}\n` +
          describeSchedule(settings.schedule)
            .map((line) => `  ${line}\n`)
            .join(''),
      );
    });
}

function parseMoment(text: string): Date {
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) {
    throw new KubemaintError('usage', `--at ${JSON.stringify(text)} is not a time`, {
      hint: 'ISO 8601 with a zone, e.g. --at 2026-12-24T03:00Z or --at 2026-12-24T03:00+01:00',
    });
  }
  return at;
}
