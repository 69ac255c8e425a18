/**
 * The machine's tools the image build runs, each named with the Debian package that brings it, so a
 * missing one is one line saying what to install. Errors are ImageBuildError: one line, no stack.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

export class ImageBuildError extends Error {
  override readonly name = 'ImageBuildError';
}

/** Binary → the Debian package that provides it. */
export const TOOL_PACKAGES = {
  mmdebstrap: 'mmdebstrap',
  readelf: 'binutils',
  'dpkg-deb': 'dpkg',
  tar: 'tar',
  chroot: 'coreutils',
  'qemu-aarch64-static': 'qemu-user-static',
  'qemu-x86_64-static': 'qemu-user-static',
  npm: 'npm',
  sh: 'dash',
  unshare: 'util-linux',
  git: 'git',
} as const;
export type Tool = keyof typeof TOOL_PACKAGES;

export function which(tool: string): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', tool], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

export function requireTool(tool: Tool): string {
  const path = which(tool);
  if (!path) {
    const pkg = TOOL_PACKAGES[tool];
    throw new ImageBuildError(
      `${tool} is missing: install the Debian package ${pkg} (apt-get install ${pkg})`,
    );
  }
  return path;
}

/** Runs a tool to completion; a failure is an ImageBuildError naming the command and its last output. */
export function run(tool: Tool, args: string[], options: SpawnSyncOptions = {}): string {
  const path = requireTool(tool);
  const result = spawnSync(path, args, {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    ...options,
  });
  if (result.error) throw new ImageBuildError(`${tool} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) {
    const output = `${String(result.stderr ?? '')}\n${String(result.stdout ?? '')}`
      .trim()
      .split('\n');
    const shown = `${args.slice(0, 6).join(' ')}${args.length > 6 ? ' …' : ''}`;
    throw new ImageBuildError(
      `${tool} ${shown} failed (exit ${String(result.status)}): ${output.slice(-5).join(' | ')}`,
    );
  }
  return String(result.stdout ?? '');
}

/** The expensive inputs (Debian files, Node.js) are kept per version here: $XDG_CACHE_HOME or ~/.cache. */
export function cacheRoot(): string {
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg?.startsWith('/') ? xdg : join(homedir(), '.cache'), 'kubemaint', 'images');
}

export const say = (line: string): void => {
  process.stderr.write(`images: ${line}\n`);
};
