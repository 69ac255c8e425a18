/**
 * `kubemaint completion bash|zsh`: prints a completion script written from the program's own command
 * tree, so it always knows every command, alias and option of this version.
 */
import type { Command } from 'commander';
import { KubemaintError } from '../../errors.js';
import {
  bashCompletion,
  SHELLS,
  zshCompletion,
  type Shell,
} from '../../../templates/completion.js';
import { completionTree } from '../completion-tree.js';
import { out } from '../output.js';

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: commands, options, files and fixed values')
    .argument('<shell>', SHELLS.join(' or '), shellArg)
    .addHelpText(
      'after',
      `
Examples:
  source <(${program.name()} completion bash)       this bash, now
  ${program.name()} completion bash > ~/.local/share/bash-completion/completions/${program.name().replace(' ', '-')}
  source <(${program.name()} completion zsh)        this zsh (after compinit)
  ${program.name()} completion zsh > ~/.zfunc/_${program.name().replace(' ', '-')}   with fpath+=(~/.zfunc) before compinit`,
    )
    .action((shell: Shell) => {
      const tree = completionTree(program);
      out(
        shell === 'bash'
          ? bashCompletion(tree, program.name())
          : zshCompletion(tree, program.name()),
      );
    });
}

function shellArg(value: string): Shell {
  if ((SHELLS as readonly string[]).includes(value)) return value as Shell;
  throw new KubemaintError('usage', `"${value.slice(0, 40)}" is not a shell kubemaint completes`, {
    hint: `use ${SHELLS.join(' or ')}, e.g. \`source <(kubemaint completion bash)\``,
  });
}
