/**
 * `kubemaint drain NODE`: the executor's drain for operators: cordon, evict through the Eviction API
 * (PDB-aware, parallel, watching for deletions), with live progress on stderr and the same report the
 * executor writes. No slot, no reboot. Like kubectl, a drain that does not finish leaves the node
 * cordoned (uncordon it with `kubectl uncordon NODE`).
 */
import type { Command } from 'commander';
import { cordon } from '../../app/executor/cordon.js';
import { drainNode, type DrainReport } from '../../app/executor/drain.js';
import type { DrainSettings } from '../../app/executor/settings.js';
import { systemClock } from '../../app/executor/system-clock.js';
import { parseDuration } from '../../core/duration.js';
import { EXIT } from '../../core/exit-codes.js';
import { KubemaintError } from '../../errors.js';
import { silentLogger } from '../../log.js';
import { asRefusal, controlCommand, globals, loadCliConfig } from '../control-context.js';
import { chooseCluster } from '../cluster-choice.js';
import { settingsFromConfig } from '../../compose/executor-settings.js';
import { out, err } from '../output.js';

interface Options {
  timeout?: string;
  dryRun?: boolean;
  podSelector?: string;
  gracePeriod?: string;
  deleteEmptydirData?: boolean;
  force?: boolean;
  disableEviction?: boolean;
  skipWaitForDeleteTimeout?: string;
  json?: boolean;
}

function duration(flag: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new KubemaintError('usage', `${flag} ${JSON.stringify(text)} is not a duration`, {
      hint: 'write it like 90s, 15m or 1h30m (0 means no limit)',
    });
  }
  return ms;
}

export function drainSettings(options: Options, base: DrainSettings): DrainSettings {
  const grace = options.gracePeriod === undefined ? undefined : Number(options.gracePeriod);
  if (grace !== undefined && (!Number.isInteger(grace) || grace < -1)) {
    throw new KubemaintError(
      'usage',
      `--grace-period ${options.gracePeriod} is not a whole number ≥ -1`,
    );
  }
  const { gracePeriodSeconds: baseGrace, ...rest } = base;
  const finalGrace = grace ?? baseGrace;
  return {
    ...rest,
    ...(finalGrace !== undefined && finalGrace >= 0 ? { gracePeriodSeconds: finalGrace } : {}),
    ...(options.timeout === undefined ? {} : { timeoutMs: duration('--timeout', options.timeout) }),
    ...(options.podSelector === undefined ? {} : { podSelector: options.podSelector }),
    ...(options.deleteEmptydirData ? { deleteEmptyDirData: true } : {}),
    ...(options.force ? { force: true } : {}),
    ...(options.disableEviction ? { disableEviction: true } : {}),
    ...(options.skipWaitForDeleteTimeout === undefined
      ? {}
      : {
          skipWaitForDeleteTimeoutMs: duration(
            '--skip-wait-for-delete-timeout',
            options.skipWaitForDeleteTimeout,
          ),
        }),
    // No one answers a stall question on the command line: wait until the timeout.
    stallAfterMs: Number.MAX_SAFE_INTEGER,
  };
}

export function formatReport(report: DrainReport): string {
  const lines = [report.message];
  for (const warning of report.warnings) lines.push(`WARNING: ${warning}`);
  for (const error of report.errors) lines.push(`error: ${error}`);
  for (const pod of report.remaining) lines.push(`  pending ${pod.pod}: ${pod.reason}`);
  if (report.outcome === 'dry-run')
    for (const pod of report.evict) lines.push(`  would evict ${pod}`);
  return `${lines.join('\n')}\n`;
}

export function registerDrainCommand(program: Command): void {
  // A control command for where it acts: the config's cluster, --kubeconfig, or the running demo,
  // found as every other command finds it (not $KUBECONFIG: one folder, one cluster).
  controlCommand(program, 'drain')
    .argument('<node>', 'the node to drain')
    .description('cordon and drain a node as the executor does (PDB-aware evictions); no reboot')
    .option(
      '--timeout <duration>',
      'give up after this long, e.g. 10m (0: never; default: drain.timeout)',
    )
    .option('--dry-run', 'list what would be evicted; change nothing')
    .option('--pod-selector <selector>', 'only drain pods matching this label selector')
    .option('--grace-period <seconds>', "seconds each pod gets to stop (-1: the pod's own)")
    .option('--delete-emptydir-data', 'evict pods with emptyDir volumes (their data is lost)')
    .option('--force', 'also evict pods that declare no controller')
    .option('--disable-eviction', 'DELETE pods instead of evicting them (bypasses PDBs)')
    .option('--skip-wait-for-delete-timeout <duration>', 'stop waiting for pods deleted longer ago')
    .option('--json', 'print the report as one JSON document on stdout')
    .addHelpText(
      'after',
      `\nExit codes: ${EXIT.ok} drained, ${EXIT.config} bad flags or no such node, ${EXIT.drainBlocked} blocked (node left cordoned), ${EXIT.requestInvalid} your RBAC refuses it.`,
    )
    .action((node: string, options: Options, command: Command) =>
      drain(node, options, command).catch((error: unknown) => {
        throw asRefusal(error);
      }),
    );
}

async function drain(node: string, options: Options, command: Command): Promise<void> {
  const { kubeconfig, as, cluster } = globals(command);
  // The cluster --cluster names (or a kubectl context), as every control command (cluster-choice.ts).
  const chosen = chooseCluster(loadCliConfig(globals(command)), { cluster, kubeconfig });
  const config = chosen.config;
  const base = settingsFromConfig(config);
  const settings = drainSettings(options, base.drain);
  // The kube SDK loads only when a drain runs, so `--help` and bad flags answer at once.
  const [{ connectCluster }, { createKubeClient }, { kubePorts }] = await Promise.all([
    import('../../compose/connect.js'),
    import('../../adapters/kube/client.js'),
    import('../../adapters/kube/executor-ports.js'),
  ]);
  const connection = await connectCluster(config, {
    log: silentLogger(),
    sim: 'attach',
    ...(chosen.kubeconfigPath ? { kubeconfigPath: chosen.kubeconfigPath } : {}),
    ...(as ? { impersonate: as } : {}),
  });
  const client = createKubeClient(connection.kubeConfig);
  const ports = kubePorts(client, silentLogger(), systemClock, base.namespace);
  const info = await ports.nodes.getNode(node);
  if (!info) throw new KubemaintError('usage', `node ${node} does not exist`);
  if (!options.dryRun) {
    await cordon(ports.nodes, info);
    err(info.unschedulable ? `node/${node} already cordoned\n` : `node/${node} cordoned\n`);
  }
  let last = '';
  const report = await drainNode(
    { pods: ports.pods, clock: systemClock },
    { node, settings, dryRun: options.dryRun ?? false },
    {
      onProgress: (p) => {
        if (p.message !== last) err(`${(last = p.message)}\n`);
      },
    },
  );
  out(options.json ? `${JSON.stringify(report)}\n` : formatReport(report));
  process.exitCode =
    report.outcome === 'blocked' || report.outcome === 'skipped' ? EXIT.drainBlocked : EXIT.ok;
}
