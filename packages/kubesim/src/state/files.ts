/**
 * The file rules of a sim's saved state: a file is replaced whole by writing a temporary file beside
 * it, syncing it and renaming it over the old one (a crash leaves the old file or the new one, never
 * half of either), and a file that cannot be read back is a SimError naming it and saying how to
 * start afresh, never a stack trace.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { SimError } from '../errors.js';

/** Replaces `path` with `data` atomically. */
export function writeFileAtomic(path: string, data: string, mode = 0o600): void {
  const temporary = `${path}.tmp-${process.pid}`;
  const fd = openSync(temporary, 'w', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  syncDirectory(dirname(path));
}

/** The rename itself is durable only once the directory is synced (not possible everywhere). */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse to sync a directory: the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The one error for a saved state that will not load: which file, what is wrong, what to do. */
export function unreadableState(file: string, problem: string, stateDir: string, cause?: unknown) {
  return new SimError('config_invalid', `the sim's saved state ${file} ${problem}`, {
    hint:
      `move the state away to start a fresh cluster (mv ${stateDir} ${stateDir}.old), ` +
      'or point --state at another directory',
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A saved file's JSON, or undefined when there is none. */
export function readJsonFile(path: string, stateDir: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadableState(path, `cannot be read: ${(error as Error).message}`, stateDir, error);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw unreadableState(path, `is not valid JSON (${(error as Error).message})`, stateDir, error);
  }
}

/**
 * The header every saved file starts with. A file of another kind or version is refused by name:
 * loading it anyway could serve objects this kubesim does not understand.
 */
export function checkHeader(
  value: unknown,
  path: string,
  stateDir: string,
  kind: string,
  version: number,
): Record<string, unknown> {
  const record =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  if (!record || record['kind'] !== kind) {
    throw unreadableState(path, `is not a ${kind} file`, stateDir);
  }
  if (record['version'] !== version) {
    throw unreadableState(
      path,
      `is version ${JSON.stringify(record['version'])}; this kubesim reads version ${version} only`,
      stateDir,
    );
  }
  return record;
}
