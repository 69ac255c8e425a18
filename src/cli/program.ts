/**
 * The `kubemaint` program: each subcommand lives in its own file under `commands/` and registers
 * itself here; this file only wires them and adds the program's help (what every program shares:
 * program-base.ts; errors to exit codes: report-error.ts). The entry that runs it is main.ts.
 */
import type { Command } from 'commander';
import { registerCommands } from './commands/index.js';
import { addExamples } from './examples.js';
import { baseProgram, programName } from './program-base.js';

export { programName };

export function buildProgram(name: string = programName()): Command {
  const program = baseProgram(name).addHelpText('after', gettingStarted(name));
  registerCommands(program);
  addExamples(program);
  return program;
}

/** Under the program's help: the demo in two terminals, then the way to a real cluster. */
const gettingStarted = (name: string): string => `
Getting started (the embedded demo cluster, no config needed):
  ${name} serve                  the demo; its prompts appear in this terminal
  ${name} status                 in a second terminal, same folder: what is proposed, and why
  ${name} approve r-7f3a9c       approve one; watch the first terminal
(In a checkout: npm start, then npx kubemaint ….)

With a real cluster: write kubemaint.yaml (${name} config print-defaults), check it with
\`${name} config check\`, then \`${name} serve\`. Every command has --help with examples.
Exit codes: 0 done; 1 unexpected; 2 bad flags, arguments or config, or no cluster to talk to;
3 no free slot; 4 drain blocked; 5 refused (not an approver, no such request, it has ended).`;
