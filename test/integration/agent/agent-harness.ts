/**
 * Runs infra/agent/kubemaint-agent.sh as the DaemonSet would: a service-account directory with a
 * token and the cluster CA, a temporary directory standing in for the host's / (HOST_ROOT), and the
 * API server's URL. Each shell under test is a row: dash, and busybox sh with busybox's own
 * utilities first on PATH (what the agent image has: scripts/images/spec.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AGENT_UTILITIES } from '../../../scripts/images/spec.js';

export const SCRIPT = resolve(import.meta.dirname, '../../../infra/agent/kubemaint-agent.sh');

export interface Shell {
  name: string;
  argv: string[];
  /** Directory to put first on PATH, or undefined. */
  pathPrefix: string | undefined;
}

const has = (bin: string): boolean => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;

/** The shells present on this machine; dash is required, busybox is added when installed. */
export function availableShells(): Shell[] {
  const shells: Shell[] = [{ name: 'dash', argv: ['dash', SCRIPT], pathPrefix: undefined }];
  if (has('busybox')) {
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-busybox-'));
    const busybox = spawnSync('sh', ['-c', 'command -v busybox']).stdout.toString().trim();
    for (const util of AGENT_UTILITIES) symlinkSync(busybox, join(dir, util));
    shells.push({ name: 'busybox sh', argv: ['busybox', 'sh', SCRIPT], pathPrefix: dir });
  }
  return shells;
}

export interface Sandbox {
  hostRoot: string;
  sentinel: string;
  saDir: string;
  tokenFile: string;
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
}

export function sandbox(
  shell: Shell,
  api: { url: string; caPem: string },
  token: string,
  node: string,
): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'kubemaint-agent-'));
  const hostRoot = join(root, 'host');
  mkdirSync(join(hostRoot, 'var/run'), { recursive: true });
  const saDir = join(root, 'sa');
  mkdirSync(saDir);
  writeFileSync(join(saDir, 'token'), token);
  writeFileSync(join(saDir, 'ca.crt'), api.caPem);
  return {
    hostRoot,
    sentinel: join(hostRoot, 'var/run/reboot-required'),
    saDir,
    tokenFile: join(saDir, 'token'),
    env: (extra = {}) => ({
      PATH: shell.pathPrefix ? `${shell.pathPrefix}:${process.env.PATH}` : process.env.PATH,
      NODE_NAME: node,
      HOST_ROOT: hostRoot,
      SA_DIR: saDir,
      API_SERVER: api.url,
      PERIOD_SECONDS: '0',
      JITTER_SECONDS: '0',
      // No kubelet unless a test starts one (the grace period tests): nothing asks this machine's.
      KUBELET_URL: 'off',
      ...extra,
    }),
  };
}

export interface Finished {
  code: number | null;
  output: string;
}

/** Runs to completion (use AGENT_ITERATIONS in env). */
export function runAgent(shell: Shell, env: NodeJS.ProcessEnv): Promise<Finished> {
  const running = startAgent(shell, env);
  return new Promise((done) =>
    running.child.on('exit', (code) => done({ code, output: running.output() })),
  );
}

export interface Running {
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

export function startAgent(shell: Shell, env: NodeJS.ProcessEnv): Running {
  const [bin, ...args] = shell.argv;
  const child = spawn(bin!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return {
    child,
    output: () => output,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Polls until `condition` holds; fails with `what` after `ms` (a bound, not a timing assertion). */
export async function eventually(
  what: string,
  condition: () => boolean,
  ms = 15_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
