/**
 * What went wrong, told once on stderr and turned into the exit code (main.ts). Kept apart from the
 * program so that the executor's start (executor-program.ts) loads no other command to report one.
 */
import { CommanderError } from 'commander';
import { KubemaintError, exitCodeOf } from '../errors.js';
import { EXIT } from '../core/exit-codes.js';
import { err } from './output.js';

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
