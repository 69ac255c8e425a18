/**
 * Finding the real clients the matrix runs: every `kubectl.1.NN` installed beside `kubectl` (the
 * Google Cloud SDK ships one per minor next to its dispatcher), and the official Python client in a
 * virtualenv under the user's cache, installed there from PyPI the first time.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Kubectl {
  minor: number;
  path: string;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** `kubectl.1.NN` beside kubectl (also beside the file a `kubectl` symlink points to), oldest first. */
export function installedKubectls(): Kubectl[] {
  const kubectl = onPath('kubectl');
  const dirs = new Set<string>();
  if (kubectl) {
    dirs.add(dirname(kubectl));
    dirs.add(dirname(realpathSync(kubectl)));
  }
  const found = new Map<number, string>();
  for (const dir of dirs) {
    for (const file of readdirSync(dir)) {
      const m = /^kubectl\.1\.(\d+)$/.exec(file);
      if (m && !found.has(Number(m[1]))) found.set(Number(m[1]), join(dir, file));
    }
  }
  if (found.size === 0 && kubectl) {
    // One plain kubectl: its own minor.
    const out = spawnSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
    const minor = Number(/"minor":\s*"(\d+)/.exec(out.stdout ?? '')?.[1]);
    if (Number.isInteger(minor)) found.set(minor, kubectl);
  }
  return [...found].sort(([a], [b]) => a - b).map(([minor, path]) => ({ minor, path }));
}

export const PYTHON_CLIENT_VENV = join(
  process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'),
  'kubesim',
  'python-kubernetes',
);

/** The one command that installs the Python client where the matrix looks for it. */
export const PYTHON_INSTALL_HINT = `python3 -m venv ${PYTHON_CLIENT_VENV} && ${PYTHON_CLIENT_VENV}/bin/pip install kubernetes`;

/**
 * The venv's python with `kubernetes` importable, installing it once if missing; a string saying
 * why not when that fails (no python3, no network).
 */
export async function pythonClient(): Promise<{ python: string; version: string } | string> {
  const python = join(PYTHON_CLIENT_VENV, 'bin', 'python');
  const version = async () =>
    (await run(python, ['-c', 'import kubernetes; print(kubernetes.__version__)'])).stdout.trim();
  try {
    return { python, version: await version() };
  } catch {
    // Not there yet: install below.
  }
  try {
    await run('python3', ['-m', 'venv', PYTHON_CLIENT_VENV], { timeout: 120_000 });
    await run(join(PYTHON_CLIENT_VENV, 'bin', 'pip'), ['install', '--quiet', 'kubernetes'], {
      timeout: 300_000,
    });
    return { python, version: await version() };
  } catch (error) {
    return `the Python client is not installed and installing it failed (${(error as Error).message.split('\n')[0]}); run: ${PYTHON_INSTALL_HINT}`;
  }
}
