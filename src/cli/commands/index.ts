/**
 * The list of subcommands. Add one line per command file; a command is only listed once it works.
 */
import type { Command } from 'commander';
import { registerCompletionCommand } from './completion.js';
import { registerConfigCommand } from './config.js';
import { registerDrainCommand } from './drain.js';
import { registerExecutorCommand } from './executor.js';
import { registerHistoryCommand } from './history.js';
import { registerNotifyCommand } from './notify.js';
import { registerSimCommand } from './sim.js';
import { registerRehearseCommand } from './rehearse.js';
import { registerClusterCommands } from './cluster-ops.js';
import { registerRequestCommands } from './requests.js';
import { registerTickCommands } from './tick.js';
import { registerServeCommand } from './serve.js';
import { registerUpgradeScriptCommand } from './upgrade-script.js';
import { registerWindowsCommand } from './windows.js';

export function registerCommands(program: Command): void {
  registerRequestCommands(program);
  registerClusterCommands(program);
  registerHistoryCommand(program);
  registerTickCommands(program);
  registerWindowsCommand(program);
  registerServeCommand(program);
  registerConfigCommand(program);
  registerExecutorCommand(program);
  registerUpgradeScriptCommand(program);
  registerDrainCommand(program);
  registerNotifyCommand(program);
  registerSimCommand(program);
  registerRehearseCommand(program);
  // Last: it reads the tree the others made.
  registerCompletionCommand(program);
}
