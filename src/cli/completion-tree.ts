/**
 * The program's commands, options and fixed values as plain data, read from commander's own tree, so
 * the completion scripts (templates/completion.ts) can never list a command or flag that does not
 * exist, nor miss a new one.
 */
import type { Argument, Command, Option } from 'commander';
import { DECISION_KINDS } from '../core/request.js';
import { LOG_FORMATS } from '../log.js';
import { SHELLS, type CompletionNode, type CompletionOption } from '../../templates/completion.js';

/** Values commander does not know because their parsers are functions (they say why they refuse). */
const FIXED_VALUES: Record<string, readonly string[]> = {
  '--log-format': LOG_FORMATS,
  decision: DECISION_KINDS.filter((k) => k === 'wait' || k === 'skip' || k === 'force'),
  shell: SHELLS,
};

export function completionTree(program: Command): CompletionNode {
  // The version flag is the program's alone; its other options work after a subcommand too.
  const inherited = program.options.filter((o) => o.long !== '--version');
  return {
    ...nodeOf(program, [], inherited),
    options: [...program.options, ...helpOption(program)].map(optionOf),
  };
}

function nodeOf(command: Command, path: string[], inherited: readonly Option[]): CompletionNode {
  const own = path.length === 0 ? [] : command.options;
  return {
    path,
    children: command.commands.map((child) => ({
      names: [child.name(), ...child.aliases()],
      node: nodeOf(child, [...path, child.name()], inherited),
    })),
    // Program options are taken before or after a subcommand (commander's default).
    options: [...own, ...inherited, ...helpOption(command)].map(optionOf),
    args: command.registeredArguments.map(argumentValues),
  };
}

function optionOf(option: Option): CompletionOption {
  const flags = [option.short, option.long].filter((f): f is string => f !== undefined);
  if (!option.required && !option.optional) return { flags };
  const fixed = option.argChoices ?? FIXED_VALUES[option.long ?? ''];
  if (fixed) return { flags, value: fixed };
  return { flags, value: /<(path|file|dir)>/.test(option.flags) ? 'file' : 'any' };
}

function argumentValues(argument: Argument): readonly string[] | undefined {
  return argument.argChoices ?? FIXED_VALUES[argument.name()];
}

/** `-h, --help` is commander's own and not in `options`. */
function helpOption(command: Command): Option[] {
  return [command.createOption('-h, --help', 'display help')];
}
