/**
 * The `kubemaint` program: each subcommand lives in its own file under `commands/` and registers
 * itself here; this file only wires them, names the program and maps errors to exit codes. The
 * entry that runs it is main.ts.
 */
import { basename } from 'node:path';
import { Command, CommanderError } from 'commander';
import { KubemaintError, exitCodeOf } from '../errors.js';
import { EXIT } from '../core/exit-codes.js';
import { VERSION } from '../version.js';
import { registerCommands } from './commands/index.js';
import { addExamples } from './examples.js';
import { logFormatFlag, logFormatOf } from '../config/log-format.js';
import { useLogFormat, type LogFormat } from '../log.js';
import { err } from './output.js';

/** `kubectl maint` when kubectl runs us as its plugin (the `kubectl-maint` binary), else `kubemaint`. */
export function programName(script: string = process.argv[1] ?? ''): string {
  return /^kubectl-maint(\.js)?$/.test(basename(script)) ? 'kubectl maint' : 'kubemaint';
}

export function buildProgram(name: string = programName()): Command {
  const program = new Command(name)
    .description(
      'Keep a Kubernetes fleet patched: find nodes that need a reboot or a kubelet upgrade, ask ' +
        'people for approval, drain and reboot inside maintenance windows, prove each node came back.',
    )
    .addHelpText('after', gettingStarted(name))
    .version(VERSION, '-V, --version', 'print the version and exit')
    .option(
      '--log-format <format>',
      'json or text (default: $KUBEMAINT_LOG_FORMAT, else log.format in the config, else json)',
      logFormatFlag,
    )
    // Before any command runs, so its first log line is already in the format asked for; a command
    // that reads the config applies log.format then (control-context.ts), unless this said otherwise.
    .hook('preAction', (_program, command) => {
      const flag = command.optsWithGlobals<{ logFormat?: LogFormat }>().logFormat;
      useLogFormat(logFormatOf({ flag, env: process.env }));
    })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
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

/**
 * kubesim's SimError, known by its name: its codes are a subset of ours, and importing the package
 * here would load the whole simulator for every command (the sim commands import it lazily).
 */
function isSimError(error: unknown): error is Error & {
  code: 'usage' | 'config_invalid' | 'not_found' | 'unexpected';
  hint?: string;
} {
  return (
    error instanceof Error &&
    error.name === 'SimError' &&
    ['usage', 'config_invalid', 'not_found', 'unexpected'].includes(
      (error as { code?: unknown }).code as string,
    )
  );
}

export function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed its message (or the help/version text).
    return error.exitCode === 0 ? EXIT.ok : EXIT.config;
  }
  if (isSimError(error)) {
    return reportError(
      new KubemaintError(error.code, error.message, {
        ...(error.hint === undefined ? {} : { hint: error.hint }),
        cause: error,
      }),
    );
  }
  if (error instanceof KubemaintError) {
    err(`error: ${error.message}\n`);
    if (error.hint) err(`hint: ${error.hint}\n`);
    return exitCodeOf(error);
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  err(`unexpected error: ${message}\n`);
  return EXIT.unexpected;
}
