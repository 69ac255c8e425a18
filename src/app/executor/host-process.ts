/**
 * The HostPort over real processes: spawn an argv without a shell (no word splitting, no
 * interpolation, invariant 3), collect the tail of stderr for the report; or send a signal to a PID.
 * This is the executor's edge to the host, the one place that touches child_process.
 */
import { spawn } from 'node:child_process';
import type { HostPort, HostResult } from '../ports.js';

const STDERR_TAIL = 2_000;

export function runProcess(argv: readonly string[], env?: NodeJS.ProcessEnv): Promise<HostResult> {
  return new Promise((resolve) => {
    const [file, ...args] = argv;
    if (file === undefined) return resolve({ exitCode: 127, stderr: 'empty argv' });
    let stderr = '';
    const child = spawn(file, args, {
      stdio: ['ignore', 'inherit', 'pipe'],
      env: env ?? process.env,
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      process.stderr.write(chunk);
    });
    child.on('error', (error) => resolve({ exitCode: 127, stderr: `${stderr}${error.message}` }));
    child.on('close', (code, signal) =>
      resolve({ exitCode: code ?? 128, stderr: signal ? `${stderr}killed by ${signal}` : stderr }),
    );
  });
}

export const processHost: HostPort = {
  run: (argv) => runProcess(argv),
  signal: (pid, signal) => {
    process.kill(pid, signal);
  },
};
