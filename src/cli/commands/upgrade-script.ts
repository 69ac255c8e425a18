/**
 * `kubemaint upgrade-script`: prints the kubelet upgrade script the executor runs on kubeadm nodes
 * (`upgrade.method: kubeadm`, docs/upgrades.md), so a person can read it, or run it by hand on one
 * node first, with `--dry-run`, before a campaign.
 */
import type { Command } from 'commander';
import { kubeadmUpgradeScript } from '../../compose/upgrade-script.js';
import { KubemaintError } from '../../errors.js';
import { out } from '../output.js';

export function registerUpgradeScriptCommand(program: Command): void {
  program
    .command('upgrade-script')
    .description(
      'print the kubelet upgrade script for kubeadm nodes (apt or dnf, one minor at a time) that\n' +
        'upgrade.method: kubeadm runs on each node; run it by hand with --dry-run to see its steps',
    )
    .addHelpText(
      'after',
      '\nBy hand, on one node (the script takes [--dry-run] [--restart] [--family apt|dnf] VERSION):\n' +
        '  kubemaint upgrade-script | ssh node-1 sudo sh -s -- --dry-run v1.31.4   print the steps\n' +
        '  kubemaint upgrade-script | ssh node-1 sudo sh -s -- --restart v1.31.4   do them (drain first)',
    )
    .action(() => {
      const script = kubeadmUpgradeScript();
      if (!script)
        throw new KubemaintError(
          'unexpected',
          'this build of kubemaint carries no upgrade script',
          {
            hint: 'it is infra/upgrade/kubeadm-upgrade.sh in the kubemaint repository',
          },
        );
      out(script);
    });
}
