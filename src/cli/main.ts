/**
 * Entry of `kubemaint` (bin/launch.js imports it after checking the Node version; the image runs its
 * bundle, dist/cli.mjs, directly). Runs the program and turns what went wrong into an exit code.
 */
import { buildProgram, reportError } from './program.js';

// `kubemaint --help | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportError(error);
}
