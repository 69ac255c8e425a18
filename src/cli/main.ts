/**
 * Entry of `kubemaint` (bin/launch.js imports it after checking the Node version; the image runs its
 * bundle, dist/cli.mjs, directly). Runs the program and turns what went wrong into an exit code.
 */
import { reportError } from './report-error.js';

// `kubemaint --help | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

try {
  // The executor Job's command (templates/executor-job.ts: `executor --node … --request …`) loads
  // its own command alone (executor-program.ts); anything else, the whole program.
  const program =
    process.argv[2] === 'executor'
      ? (await import('./executor-program.js')).buildExecutorProgram()
      : (await import('./program.js')).buildProgram();
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportError(error);
}
