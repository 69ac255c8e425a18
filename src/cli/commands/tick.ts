/**
 * `kubemaint tick` runs one control-plane tick by hand (what the schedule runs); `kubemaint scan`
 * shows what detection finds across the whole fleet without changing anything.
 */
import type { Command } from 'commander';
import { findNeeds, runTick, skewLines } from '../../app/control/tick.js';
import { controlCommand, withControl } from '../control-context.js';
import { scanLines } from '../../../templates/scan.js';
import { out } from '../output.js';

export function registerTickCommands(program: Command): void {
  controlCommand(program, 'tick')
    .description('run one tick now: verify, dispatch what may start, propose what is needed')
    .option('--skew-scan', 'also read every node for kubelet skew (normally hourly)')
    .option('--json', 'print the tick report as JSON')
    .action(async (options: { skewScan?: boolean; json?: boolean }, command: Command) =>
      withControl(command, async ({ deps }) => {
        const report = await runTick(deps, { skewScan: options.skewScan === true });
        if (options.json) {
          out(`${JSON.stringify(report, null, 2)}\n`);
          return;
        }
        const section = (title: string, lines: string[]) =>
          lines.length ? `${title}:\n${lines.map((l) => `  ${l}`).join('\n')}\n` : '';
        const text =
          section('reconciled', report.reconciled) +
          section('dispatched', report.dispatched) +
          section('proposed', report.proposed) +
          section('skipped', report.skipped) +
          section('skew', report.skew ?? []);
        out(text || 'nothing to do\n');
      }),
    );

  controlCommand(program, 'scan')
    .description(
      'list the nodes that need a reboot or a kubelet upgrade (reads every node; writes nothing)',
    )
    .option('--json', 'print one JSON document')
    .action(async (options: { json?: boolean }, command: Command) =>
      withControl(command, async ({ deps }) => {
        const findings = await findNeeds(deps, true);
        const { nodes, needs, skipped, violations, apiservers } = findings;
        if (options.json) {
          const doc = { nodes: nodes.length, needs, skipped, violations, apiservers };
          out(`${JSON.stringify(doc, null, 2)}\n`);
          return;
        }
        out(
          `${scanLines({ ...findings, nodes: nodes.length, skew: skewLines(findings) }).join('\n')}\n`,
        );
      }),
    );
}
