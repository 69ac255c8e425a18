/**
 * `kubemaint completion bash|zsh`: the scripts are written from the program's own command tree.
 * bash: the script is sourced in a real bash and its completer asked, as a TAB would (COMP_WORDS),
 * and `complete -p` shows it registered. zsh: it parses, registers with compdef, and defines one
 * function per command.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { completionTree } from '../../../src/cli/completion-tree.js';
import { buildProgram } from '../../../src/cli/program.js';
import { bashCompletion, zshCompletion } from '../../../templates/completion.js';

const dir = mkdtempSync(join(tmpdir(), 'kubemaint-completion-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function script(shell: 'bash' | 'zsh', name = 'kubemaint'): string {
  const tree = completionTree(buildProgram(name));
  const text = shell === 'bash' ? bashCompletion(tree, name) : zshCompletion(tree, name);
  const file = join(dir, `${name.replace(' ', '-')}.${shell}`);
  writeFileSync(file, text);
  return file;
}

/** Source the script in bash and ask its completer for each line of words (the last is the cursor's). */
function complete(file: string, fn: string, lines: string[][]): string[] {
  const asks = lines
    .map((words) => {
      const quoted = words.map((w) => `'${w}'`).join(' ');
      return `COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); ${fn}; echo "\${COMPREPLY[*]}"`;
    })
    .join('\n');
  const bash = spawnSync('bash', ['--norc', '--noprofile', '-c', `source '${file}'\n${asks}`], {
    encoding: 'utf8',
    cwd: dir,
  });
  assert.equal(bash.status, 0, bash.stderr);
  assert.equal(bash.stderr, '');
  return bash.stdout.split('\n').slice(0, lines.length);
}

describe('bash completion', () => {
  const file = script('bash');
  writeFileSync(join(dir, 'prod-cluster.yaml'), '');

  it('registers for kubemaint (complete -p)', () => {
    const bash = spawnSync('bash', ['--norc', '-c', `source '${file}'; complete -p kubemaint`], {
      encoding: 'utf8',
    });
    assert.equal(bash.stdout.trim(), 'complete -F _kubemaint kubemaint');
  });

  const cases: [string, string[], (got: string[]) => void][] = [
    [
      'every command, aliases too',
      ['kubemaint', ''],
      (got) => {
        const names = buildProgram().commands.flatMap((c) => [c.name(), ...c.aliases()]);
        assert.deepEqual([...got].sort(), [...names].sort());
        assert.ok(got.includes('locks') && got.includes('slots') && got.includes('completion'));
      },
    ],
    ['a prefix', ['kubemaint', 'ap'], (got) => assert.deepEqual(got, ['approve'])],
    [
      'a command’s options',
      ['kubemaint', 'status', '--j'],
      (got) => assert.deepEqual(got, ['--json']),
    ],
    [
      'the program’s options after a command too',
      ['kubemaint', 'approve', '--'],
      (got) => {
        for (const flag of ['--config', '--kubeconfig', '--as', '--wait', '--log-format', '--help'])
          assert.ok(got.includes(flag), `${flag} in ${got.join(' ')}`);
        assert.ok(!got.includes('--version'), 'the version flag is the program’s alone');
      },
    ],
    [
      'a drain decision after the request id, whatever options came between',
      ['kubemaint', 'decide', '--wait', '5', 'r-abcdef', ''],
      (got) => assert.deepEqual(got, ['wait', 'skip', 'force']),
    ],
    ['no words for a request id', ['kubemaint', 'decide', ''], (got) => assert.deepEqual(got, [])],
    [
      'subcommands',
      ['kubemaint', 'config', ''],
      (got) => assert.deepEqual(got, ['check', 'print-defaults']),
    ],
    [
      'an option’s fixed values',
      ['kubemaint', '--log-format', ''],
      (got) => assert.deepEqual(got, ['json', 'text']),
    ],
    [
      'files for a path',
      ['kubemaint', 'status', '-c', 'prod'],
      (got) => assert.deepEqual(got, ['prod-cluster.yaml']),
    ],
    [
      'the shells',
      ['kubemaint', 'completion', ''],
      (got) => assert.deepEqual(got, ['bash', 'zsh']),
    ],
  ];
  const answers = complete(
    file,
    '_kubemaint',
    cases.map(([, words]) => words),
  );
  cases.forEach(([what, words, check], i) => {
    it(`${what}: ${words.join(' ')}⇥`, () => check(answers[i]!.split(' ').filter(Boolean)));
  });

  it('kubectl maint completes as the kubectl-maint binary', () => {
    const plugin = script('bash', 'kubectl maint');
    const [commands] = complete(plugin, '_kubectl_maint', [['kubectl-maint', 'sta']]);
    assert.equal(commands, 'status');
  });
});

// zsh is installed by scripts/test-deps.sh, as the other real peers are: this never skips.
describe('zsh completion', () => {
  it('parses, registers with compdef, and has a function for every command', () => {
    const file = script('zsh');
    assert.equal(spawnSync('zsh', ['-n', file]).status, 0, 'zsh -n');
    const commands = buildProgram().commands.map((c) => c.name().replace(/-/g, '_'));
    const result = spawnSync(
      'zsh',
      [
        '-f',
        '-c',
        `autoload -U compinit && compinit -u -d '${join(dir, 'zcompdump')}'
source '${file}'
print -r -- "$_comps[kubemaint]"
for c in ${commands.join(' ')}; do whence -w _kubemaint_$c; done`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines[0], '_kubemaint');
    for (const c of commands) assert.ok(lines.includes(`_kubemaint_${c}: function`), c);
  });
});
