/**
 * `kubemaint rehearse` (issue 21): "if I approve all of them tonight, what happens?" Reads the
 * cluster (list calls only), runs the campaign the config would run on a twin (the embedded
 * Kubernetes, on its own fast clock, with the real control plane and executor) and reports per node
 * and for the campaign. Nothing is written to the cluster.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { KubemaintError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { clusterNames } from '../../config/cluster-configs.js';
import { chooseCluster } from '../cluster-choice.js';
import { globals, loadCliConfig } from '../control-context.js';
import { out } from '../output.js';

interface RehearseFlags {
  config?: string;
  kubeconfig?: string;
  cluster?: string;
  at?: string;
  json?: boolean;
  html?: string;
  scale?: string;
}

export function registerRehearseCommand(program: Command): void {
  program
    .command('rehearse')
    .description(
      'rehearse the maintenance campaign on a twin of the cluster: what happens if every proposal is approved now (writes nothing)',
    )
    .option(
      '-c, --config <path>',
      'config file (default: $KUBEMAINT_CONFIG, ./kubemaint.yaml, else the demo)',
    )
    .option(
      '--kubeconfig <path>',
      "read this cluster instead of the config's (only get, list and watch)",
    )
    .option(
      '--cluster <name>',
      'the cluster of clusters: to rehearse, with its windows, slots and approvers (without that list: a kubectl context)',
    )
    .option(
      '--at <time>',
      'start the campaign at this time (ISO 8601, e.g. 2030-01-07T22:00:00Z); windows apply',
    )
    .option(
      '--json',
      'print the report as JSON (schema kubemaint.io/rehearsal/v1, docs/rehearse.md)',
    )
    .option(
      '--html <file>',
      'also write a timeline of the rehearsal, one row per node, to this file',
    )
    .option('--scale <n>', 'twin seconds per wall second', '300')
    .addHelpText(
      'after',
      `
The twin is the embedded Kubernetes seeded with what the cluster holds: nodes, pods and their
owners, PDBs, DaemonSets, priorities, kubemaint's requests and slots. The tick and the executor
are kubemaint's own. Durations are the cluster's observed ones (ConfigMap kubemaint-durations)
when it has some, else the config's expectedDuration; the report says which.

Examples:
  kubemaint rehearse --at 2030-01-07T22:00:00Z
  kubemaint rehearse --kubeconfig prod.kubeconfig --json > tonight.json
  kubemaint rehearse --cluster prod-eu        one cluster of clusters:, as it is configured
  kubemaint rehearse --html tonight.html`,
    )
    .action(async (flags: RehearseFlags, command: Command) => {
      const at = flags.at === undefined ? undefined : parseAt(flags.at);
      const scale = Number(flags.scale ?? '300');
      if (!(scale >= 1 && scale <= 10_000))
        throw new KubemaintError(
          'usage',
          `--scale ${flags.scale ?? ''} is not a number from 1 to 10000`,
          {
            hint: 'e.g. --scale 300: five twin minutes per wall second',
          },
        );
      // Which cluster, and under whose settings: a cluster of clusters: brings its own windows,
      // slots and approvers, so the rehearsal runs the campaign that cluster would run.
      const loaded = loadCliConfig({ ...globals(command), ...flags });
      const chosen = chooseCluster(loaded, flags);
      const log = createLogger({
        service: 'cli',
        level: process.env['KUBEMAINT_LOG_LEVEL'] ?? 'warn',
      });
      const { rehearse } = await import('../../compose/rehearsal/rehearse.js');
      const { rehearsalText, rehearsalHtml } = await import('../../../templates/rehearsal.js');
      const result = await rehearse(chosen.config, {
        log,
        scale,
        clusterNames: clusterNames(loaded),
        ...(at ? { at } : {}),
        ...(chosen.kubeconfigPath ? { kubeconfigPath: chosen.kubeconfigPath } : {}),
      });
      if (flags.html)
        writeFileSync(
          flags.html,
          rehearsalHtml(result.report, result.history, {
            schedule: result.run.settings.schedule,
            zone: result.run.settings.timeZone,
          }),
        );
      out(
        flags.json ? `${JSON.stringify(result.report, null, 2)}\n` : rehearsalText(result.report),
      );
    });
}

function parseAt(text: string): Date {
  const at = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(at.getTime()))
    throw new KubemaintError('usage', `--at ${JSON.stringify(text)} is not a time`, {
      hint: 'give an ISO 8601 time with its zone, e.g. --at 2030-01-07T22:00:00Z',
    });
  return at;
}
