/**
 * Shell completion scripts for bash and zsh, written out from the program's command tree
 * (src/cli/completion-tree.ts): subcommands and their aliases, every option, files for options that
 * take a path, and the fixed words some arguments take (`decide ID wait|skip|force`). Static: a TAB
 * never starts Node or reaches the cluster. Pure: tree in, script text out.
 */

/** A program's commands as completion needs them (src/cli/completion-tree.ts reads commander's). */
export interface CompletionOption {
  /** Every spelling: `-c`, `--config`. */
  flags: string[];
  /** What its value is: a file, one of fixed words, or anything (none: a switch). */
  value?: 'file' | 'any' | readonly string[];
}

export interface CompletionNode {
  /** The words that lead here from the program: `[]`, `['config']`, `['config', 'check']`. */
  path: string[];
  /** The names a person types (aliases too) of each subcommand. */
  children: { names: string[]; node: CompletionNode }[];
  options: CompletionOption[];
  /** For each positional argument in order: its fixed words, or none. */
  args: (readonly string[] | undefined)[];
}

export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

/** Every node of the tree, the program first. */
function walk(node: CompletionNode): CompletionNode[] {
  return [node, ...node.children.flatMap((c) => walk(c.node))];
}

/** Commander's command and flag names: nothing a shell would expand, but only such words pass. */
const words = (list: readonly string[]): string =>
  list.filter((w) => /^[\w.:-]+$/.test(w)).join(' ');
const quoted = (text: string): string => JSON.stringify(text);
/** The binary a shell completes: `kubectl maint` is run as `kubectl-maint`. */
const binary = (program: string): string => program.replace(' ', '-');
const identifier = (text: string): string => text.replace(/[^A-Za-z0-9]/g, '_');

/**
 * Small bash functions, each a `case` over the command path typed so far (`""`, `"config"`), and one
 * completer that walks the words before the cursor to find that path.
 */
export function bashCompletion(tree: CompletionNode, program: string): string {
  const fn = `_${identifier(binary(program))}`;
  const nodes = walk(tree);
  const path = (node: CompletionNode) => node.path.join(' ');
  const lookup = (name: string, arms: string[]): string =>
    `${fn}_${name}() {\n  case "$1" in\n${arms.join('\n')}\n  esac\n}`;
  const arm = (patterns: string[], text: string) =>
    `    ${patterns.map(quoted).join('|')}) echo ${quoted(text)} ;;`;
  const withValue = (o: CompletionOption) => o.value !== undefined;
  return `# ${program} completion for bash. Load it in this shell:
#   source <(${program} completion bash)
# or for every new shell, save it where bash-completion looks for it:
#   ${program} completion bash > ~/.local/share/bash-completion/completions/${binary(program)}
${lookup(
  'children',
  nodes
    .filter((n) => n.children.length)
    .map((n) => arm([path(n)], words(n.children.flatMap((c) => c.names)))),
)}
${lookup(
  'child',
  nodes.flatMap((n) =>
    n.children.map((c) =>
      arm(
        c.names.map((name) => `${path(n)}|${name}`),
        c.node.path.at(-1)!,
      ),
    ),
  ),
)}
${lookup(
  'options',
  nodes.map((n) => arm([path(n)], words(n.options.flatMap((o) => o.flags)))),
)}
${lookup(
  'takes',
  nodes.map((n) => arm([path(n)], words(n.options.filter(withValue).flatMap((o) => o.flags)))),
)}
${lookup(
  'value',
  nodes.flatMap((n) =>
    n.options
      .filter((o) => o.value === 'file' || Array.isArray(o.value))
      .map((o) =>
        arm(
          o.flags.map((flag) => `${path(n)}|${flag}`),
          o.value === 'file' ? '@file' : words(o.value as readonly string[]),
        ),
      ),
  ),
)}
${lookup(
  'arg',
  nodes.flatMap((n) =>
    n.args.flatMap((values, index) =>
      values ? [arm([`${path(n)}|${index}`], words(values))] : [],
    ),
  ),
)}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local path="" positional=0 skip=0 i word child
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ $word == -* ]]; then
      [[ " $(${fn}_takes "$path") " == *" $word "* ]] && skip=1
      continue
    fi
    child="$(${fn}_child "$path|$word")"
    if [[ -n $child ]]; then
      path="\${path:+$path }$child"
      positional=0
    else
      positional=$((positional + 1))
    fi
  done
  if [[ $prev == -* && " $(${fn}_takes "$path") " == *" $prev "* ]]; then
    local values
    values="$(${fn}_value "$path|$prev")"
    if [[ $values == @file ]]; then
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
    fi
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(${fn}_options "$path")" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -W "$(${fn}_children "$path") $(${fn}_arg "$path|$positional")" -- "$cur")
  fi
  return 0
}
complete -F ${fn} ${binary(program)}
`;
}

/** zsh's own completion: one `_arguments` function per command, `->rest` into subcommands. */
export function zshCompletion(tree: CompletionNode, program: string): string {
  const command = binary(program);
  const nameOf = (node: CompletionNode) =>
    [`_${identifier(command)}`, ...node.path.map(identifier)].join('_');
  const spec = (o: CompletionOption): string => {
    const names = o.flags.length > 1 ? `{${o.flags.join(',')}}` : o.flags[0]!;
    const exclusive = o.flags.length > 1 ? `'(${o.flags.join(' ')})'` : '';
    if (o.value === undefined) return `${exclusive}${names}`;
    const action = o.value === 'file' ? '_files' : o.value === 'any' ? ' ' : `(${words(o.value)})`;
    return `${exclusive}${names}'=:value:${action}'`;
  };
  const functions = walk(tree).map((node) => {
    const specs = node.options.map((o) => `    ${spec(o)} \\`);
    node.args.forEach((values, index) =>
      specs.push(`    '${index + 1}:value:${values ? `(${words(values)})` : ' '}' \\`),
    );
    const dispatch: string[] = [];
    if (node.children.length) {
      const names = node.children.flatMap((c) => c.names);
      specs.push(`    '1:command:(${words(names)})' \\`, `    '*::arg:->rest' \\`);
      dispatch.push(
        '  [[ $state == rest ]] || return 0',
        '  case $words[1] in',
        ...node.children.map((c) => `    ${c.names.join('|')}) ${nameOf(c.node)} ;;`),
        '  esac',
      );
    }
    return [
      `${nameOf(node)}() {`,
      '  local state',
      '  _arguments -s \\',
      ...specs,
      '    && return 0',
      ...dispatch,
      '}',
    ].join('\n');
  });
  return `#compdef ${command}
# ${program} completion for zsh. Load it in this shell:
#   source <(${program} completion zsh)
# or for every new shell, save it as _${command} in a folder on $fpath (before compinit runs):
#   ${program} completion zsh > ~/.zfunc/_${command}
${functions.join('\n')}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  ${nameOf(tree)} "$@"
else
  compdef ${nameOf(tree)} ${command}
fi
`;
}
