/**
 * The list of subcommands. Add one line per command file; a command is only listed once it works.
 */
import type { Command } from 'commander';

export function registerCommands(_program: Command): void {
  // Subcommands register here as their issues land.
}
