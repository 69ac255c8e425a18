/**
 * The program for `kubemaint executor` alone: what every executor Job runs, on a node about to be
 * drained, so its start is part of every node's maintenance (issue 20). The whole program
 * (program.ts) loads every command and, through them, the config schema, the scheduler and the time
 * library: a sixth of the executor's start CPU (ADR 0033), none of which it uses. Its help and
 * behaviour are the whole program's `executor` (test/integration/cli/executor-start.test.ts).
 */
import type { Command } from 'commander';
import { registerExecutorCommand } from './commands/executor.js';
import { addExamples } from './examples.js';
import { baseProgram, programName } from './program-base.js';

export function buildExecutorProgram(name: string = programName()): Command {
  const program = baseProgram(name);
  registerExecutorCommand(program);
  addExamples(program);
  return program;
}
