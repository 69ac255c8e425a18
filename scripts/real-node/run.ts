/** Running the machine's tools (mmdebstrap, mke2fs, qemu, ssh) with their output in a log and one-line errors. */
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { RealClusterError } from '../real-cluster/errors.js';

export interface RunOptions {
  /** Output goes here (appended); the error names it. */
  logPath: string;
  /** The tool's name in messages. */
  what: string;
  /** How to install it, for the message when it is missing (e.g. `apt-get install mmdebstrap`). */
  needs: string;
  env?: NodeJS.ProcessEnv;
}

export function run(command: string, args: string[], options: RunOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const log = createWriteStream(options.logPath, { flags: 'a' });
    log.write(`$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
    });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('error', (error: NodeJS.ErrnoException) => {
      log.end();
      reject(
        new RealClusterError(
          error.code === 'ENOENT'
            ? `${command} is not installed: ${options.what} needs it (${options.needs}; scripts/real-node/deps.sh installs everything real nodes need)`
            : `${options.what}: cannot run ${command}: ${error.message}`,
        ),
      );
    });
    child.on('close', (code) => {
      log.end(() => {
        if (code === 0) return resolve();
        const last =
          readFileSync(options.logPath, 'utf8')
            .trim()
            .split('\n')
            .filter((l) => l.trim() !== '')
            .at(-1) ?? '';
        reject(
          new RealClusterError(
            `${options.what} failed (exit ${code}): ${last.trim().slice(0, 300)} — full log: ${options.logPath}`,
          ),
        );
      });
    });
  });
}
