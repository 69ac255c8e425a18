/**
 * `--help` teaches: every command shows examples, and every example is one the program accepts
 * (parsed by the real program, its argument checks included, stopped before the command runs).
 * As the kubectl plugin, help and examples say `kubectl maint`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { EXAMPLES } from '../../../src/cli/examples.js';
import { buildProgram, programName } from '../../../src/cli/program.js';

/** The help text a person sees, addHelpText sections included. */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

function commands(program: Command): { path: string; command: Command }[] {
  const all: { path: string; command: Command }[] = [];
  const visit = (command: Command, path: string[]) => {
    all.push({ path: path.join(' '), command });
    for (const child of command.commands) visit(child, [...path, child.name()]);
  };
  for (const child of program.commands) visit(child, [child.name()]);
  return all;
}

class Parsed extends Error {}

describe('--help', () => {
  for (const { path, command } of commands(buildProgram('kubemaint'))) {
    it(`${path} shows examples`, () => {
      assert.match(helpOf(command), /\nExamples:\n {2}.*kubemaint /);
    });
  }

  const examples = Object.entries(EXAMPLES).flatMap(([path, list]) =>
    list.map((example) => ({ path, ...example })),
  );
  for (const { path, args } of examples) {
    it(`the example \`${args.join(' ')}\` (${path}) parses`, async () => {
      const program = buildProgram('kubemaint');
      let errors = '';
      program.configureOutput({ writeOut: () => undefined, writeErr: (s) => (errors += s) });
      program.hook('preAction', () => {
        throw new Parsed();
      });
      await assert.rejects(
        program.parseAsync(args, { from: 'user' }),
        (error) => error instanceof Parsed,
        errors,
      );
    });
  }

  it('as kubectl runs the plugin, it is `kubectl maint` everywhere', () => {
    assert.equal(programName('/usr/local/bin/kubectl-maint'), 'kubectl maint');
    assert.equal(
      programName('/x/lib/node_modules/kubemaint/bin/kubectl-maint.js'),
      'kubectl maint',
    );
    assert.equal(programName('/usr/local/bin/kubemaint'), 'kubemaint');
    const program = buildProgram('kubectl maint');
    assert.match(helpOf(program), /^Usage: kubectl maint \[options\] \[command\]/);
    assert.match(helpOf(program), /\n {2}kubectl maint status {2,}in a second terminal/);
    const status = program.commands.find((c) => c.name() === 'status')!;
    assert.match(helpOf(status), /^Usage: kubectl maint status /);
    assert.match(helpOf(status), /\n {2}kubectl maint status node-2 /);
  });
});
