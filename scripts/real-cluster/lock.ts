/**
 * A lock file for work two processes must not do at once (two `up`s building the same version): the
 * file holds the holder's pid; a lock whose holder is gone is taken over.
 */
import { openSync, closeSync, readFileSync, rmSync, writeSync } from 'node:fs';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryTake(path: string): boolean {
  try {
    const fd = openSync(path, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number(readFileSync(path, 'utf8').trim());
    if (Number.isInteger(holder) && holder > 0 && alive(holder)) return false;
    rmSync(path, { force: true });
    return tryTake(path);
  }
}

export async function withLock<T>(
  path: string,
  say: (line: string) => void,
  work: () => Promise<T>,
): Promise<T> {
  let told = false;
  while (!tryTake(path)) {
    if (!told) say(`waiting for another process that holds ${path}…`);
    told = true;
    await new Promise((r) => setTimeout(r, 2_000));
  }
  try {
    return await work();
  } finally {
    rmSync(path, { force: true });
  }
}
