/**
 * Runs `kubemaint` as people do — a separate process through tsx — for end-to-end tests: one-shot
 * commands (`run`) and long-running ones (`start`, which collects stdout and can wait for a line).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** tsx by absolute URL: `--import tsx` would resolve from the child's cwd, a temp folder. */
const TSX = import.meta.resolve('tsx');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, KUBEMAINT_LOG_LEVEL: 'warn', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** How long `stop()` waits after SIGTERM before it kills the process and fails. */
const STOP_GRACE_MS = 60_000;

export interface LongRunning {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout; rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then the exit code; throws (after SIGKILL) when the process outlives `STOP_GRACE_MS`. */
  stop(): Promise<number | null>;
}

export function startCli(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): LongRunning {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, KUBEMAINT_LOG_LEVEL: 'warn', ...options.env },
  });
  let out = '';
  let err = '';
  let exited: number | null | undefined;
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exited = code;
      resolve(code);
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(out);
        if (match) return match;
        if (exited !== undefined) {
          throw new Error(`exited (${String(exited)}) before ${String(pattern)}:\n${out}\n${err}`);
        }
        if (Date.now() > deadline) {
          throw new Error(
            `no ${String(pattern)} within ${timeoutMs} ms:\n${out}\n${err.slice(-3000)}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      if (exited === undefined) child.kill('SIGTERM');
      // Bounded: a process that ignores SIGTERM must fail its test, not hang the suite (CI's limit
      // is the whole run's, and a hung after-hook once held a file for 70 minutes).
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), STOP_GRACE_MS);
      });
      const outcome = await Promise.race([exit, late]);
      clearTimeout(timer);
      if (outcome !== 'late') return outcome;
      child.kill('SIGKILL');
      await exit;
      throw new Error(
        `kubemaint ${args[0] ?? ''} did not exit within ${STOP_GRACE_MS} ms of SIGTERM (killed):\n${err.slice(-3000)}`,
      );
    },
  };
}
