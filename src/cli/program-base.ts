/**
 * What every `kubemaint` program shares, the whole one (program.ts) and the executor's alone
 * (executor-program.ts): its name, version, the global --log-format flag, and errors left to the
 * caller (main.ts maps them to exit codes).
 */
import { basename } from 'node:path';
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { logFormatFlag, logFormatOf } from '../config/log-format.js';
import { useLogFormat, type LogFormat } from '../log.js';

/** `kubectl maint` when kubectl runs us as its plugin (the `kubectl-maint` binary), else `kubemaint`. */
export function programName(script: string = process.argv[1] ?? ''): string {
  return /^kubectl-maint(\.js)?$/.test(basename(script)) ? 'kubectl maint' : 'kubemaint';
}

export function baseProgram(name: string): Command {
  return (
    new Command(name)
      .description(
        'Keep a Kubernetes fleet patched: find nodes that need a reboot or a kubelet upgrade, ask ' +
          'people for approval, drain and reboot inside maintenance windows, prove each node came back.',
      )
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
      .exitOverride()
  );
}
