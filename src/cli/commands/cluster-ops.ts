/**
 * Cluster-wide switches: `pause` / `resume` (the pause ConfigMap every dispatch reads), `slots` (the
 * Lease slots and who holds them) and `release` (free a slot whose holder is gone).
 */
import type { Command } from 'commander';
import { listSlots, releaseSlot, setPause } from '../../app/control/commands.js';
import { cliPerson, controlCommand, withControl } from '../control-context.js';
import { printResult, REFUSED_HELP } from './requests.js';
import { printable } from '../../core/printable.js';
import { out } from '../output.js';

export function registerClusterCommands(program: Command): void {
  controlCommand(program, 'pause')
    .description('stop starting new maintenance (running work finishes); approvals still collect')
    .argument('[reason...]', 'why, shown on every waiting request')
    .addHelpText('after', REFUSED_HELP)
    .action(async (reason: string[], _options: unknown, command: Command) =>
      withControl(command, async (runtime) =>
        printResult(
          await setPause(
            runtime.deps,
            true,
            await cliPerson(runtime),
            reason.length ? reason.join(' ').slice(0, 500) : undefined,
          ),
        ),
      ),
    );

  controlCommand(program, 'resume')
    .description('lift a pause')
    .addHelpText('after', REFUSED_HELP)
    .action(async (_options: unknown, command: Command) =>
      withControl(command, async (runtime) =>
        printResult(await setPause(runtime.deps, false, await cliPerson(runtime))),
      ),
    );

  controlCommand(program, 'slots')
    // The first name of the command (ADR 0016); scripts that call it keep working.
    .alias('locks')
    .description('list the slots (kubemaint-slot-<i> Leases) and who holds them')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) =>
      withControl(command, async ({ deps }) => {
        const slots = await listSlots(deps);
        if (options.json) {
          out(`${JSON.stringify(slots, null, 2)}\n`);
          return;
        }
        if (slots.length === 0) out('no slots yet (the first executor creates them)\n');
        for (const slot of slots) {
          const renewed = slot.renewedAt ? `, renewed ${slot.renewedAt.toISOString()}` : '';
          const holder = slot.holder ? `held by ${printable(slot.holder)}${renewed}` : 'free';
          out(`${printable(slot.name)}  ${holder}\n`);
        }
      }),
    );

  controlCommand(program, 'release')
    .description("free a slot by hand (refused while its holder's request is active)")
    .argument('<slot>', 'e.g. kubemaint-slot-0 (see `kubemaint slots`)')
    .addHelpText('after', REFUSED_HELP)
    .action(async (slot: string, _options: unknown, command: Command) =>
      withControl(command, async (runtime) =>
        printResult(await releaseSlot(runtime.deps, slot, await cliPerson(runtime))),
      ),
    );
}
