/**
 * A sim's state directory (`createSim({ state: DIR })`, `kubemaint sim --state DIR`): what makes a
 * restarted sim the same cluster. `credentials.json` (CA, serving certificate, admin token,
 * service-account signing key), `snapshot.json` and `journal.ndjson` (the objects, their uids and
 * resourceVersions, saved-objects.ts), and `lock` (the pid of the sim using it, and when that
 * process started: two sims writing one journal would corrupt it). ADR 0030.
 */
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SimError } from '../errors.js';
import type { CommitRecord } from '../store.js';
import { loadOrMakeCredentials, type SimCredentials } from './credentials.js';
import { unreadableState } from './files.js';
import {
  loadObjects,
  ObjectJournal,
  type JournalHeader,
  type LoadedObjects,
  type SeedRecord,
} from './saved-objects.js';

export type { SeedRecord } from './saved-objects.js';

export interface SimState {
  dir: string;
  credentials: SimCredentials;
  /** Undefined for a new directory: the scenario seeds the store. */
  loaded: LoadedObjects | undefined;
  /** The store's onCommit. */
  track(record: CommitRecord): void;
  /** Snapshot the store as it is now and journal every later write. */
  start(header: JournalHeader): void;
  /** A last snapshot; the lock is released. */
  close(): void;
}

const LOCK_FILE = 'lock';

export function openSimState(
  stateDir: string,
  options: { hosts: readonly string[]; now: () => Date },
): SimState {
  const dir = resolve(stateDir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new SimError(
      'config_invalid',
      `cannot use ${dir} for the sim's state: ${(error as Error).message}`,
      {
        hint: 'point --state at a directory this user may write',
        cause: error,
      },
    );
  }
  const releaseLock = takeLock(dir);
  try {
    const credentials = loadOrMakeCredentials(dir, options.hosts);
    const loaded = loadObjects(dir);
    const journal = new ObjectJournal(dir, { now: options.now });
    if (loaded) journal.seed(loaded);
    return {
      dir,
      credentials,
      loaded,
      track: (record) => journal.track(record),
      start: (header) => journal.start(header),
      close() {
        try {
          journal.close();
        } finally {
          releaseLock();
        }
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/** A restart must not quietly become another cluster: the seed asked for must be the saved one. */
export function checkSeed(
  dir: string,
  saved: SeedRecord | undefined,
  asked: { scenario?: string; nodes?: number },
): void {
  if (!saved) return;
  const differs =
    (asked.scenario !== undefined && asked.scenario !== saved.scenario) ||
    (asked.nodes !== undefined && asked.nodes !== saved.nodes);
  if (!differs) return;
  const wanted = `${asked.scenario ?? saved.scenario} with ${asked.nodes ?? saved.nodes} nodes`;
  throw new SimError(
    'config_invalid',
    `the sim's saved state in ${dir} holds a cluster seeded as ${saved.scenario} with ${saved.nodes} nodes, not ${wanted}`,
    {
      hint: `to start afresh, move the state away (mv ${dir} ${dir}.old) or use another --state; to keep it, start it as it was seeded (scenario ${saved.scenario}, ${saved.nodes} nodes)`,
    },
  );
}

/**
 * Take the state's lock, or refuse while a live sim holds it. The lock names the holder's pid and
 * the time its process started (Linux's /proc; elsewhere the pid alone), so a pid the system has
 * since given to another process does not keep a dead sim's lock. A dead holder's lock is taken
 * over without a window: it is moved aside (only one of two sims starting together can move it),
 * and the taker creates its own with an exclusive create like any start. Moving aside a lock that
 * turns out to be a new one (the other sim took it over first) puts it back and refuses.
 */
function takeLock(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  const mine = identity(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, mine, { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw unreadableState(path, `cannot be written: ${(error as Error).message}`, dir, error);
      }
    }
    const held = readLock(path);
    if (held === undefined) continue; // moved aside by another sim between our create and read
    const [pid] = held.split(' ').map(Number);
    if (pid !== process.pid && holderLive(held)) throw lockHeld(pid, dir);
    // Left by a sim that died (or by this process, which is not using it now): move it aside.
    const aside = `${path}.${process.pid}.stale`;
    try {
      renameSync(path, aside);
    } catch {
      continue; // another sim moved it first: try to create ours again
    }
    const moved = readLock(aside);
    if (moved !== held && moved !== undefined && holderLive(moved)) {
      // Another sim took it over between our read and our move: its lock goes back.
      try {
        linkSync(aside, path);
      } catch {
        // A third sim created one meanwhile: it holds the lock now, and this one refuses anyway.
      } finally {
        rmSync(aside, { force: true });
      }
      throw lockHeld(Number(moved.split(' ')[0]), dir);
    }
    rmSync(aside, { force: true });
  }
  throw new SimError('usage', `could not take the lock of the saved state in ${dir}`, {
    hint: 'another sim is starting on it at the same moment; start one at a time',
  });
}

const lockHeld = (pid: number | undefined, dir: string) =>
  new SimError('usage', `another sim (pid ${pid}) is using the saved state in ${dir}`, {
    hint: 'stop that sim first, or give this one another --state directory',
  });

function readLock(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** `<pid> <start time>`: when its process started, in clock ticks since boot (Linux), if known. */
function identity(pid: number): string {
  const started = startTime(pid);
  return started === undefined ? String(pid) : `${pid} ${started}`;
}

function startTime(pid: number): string | undefined {
  try {
    // After "pid (comm) " come state (field 3) … starttime (field 22): index 19.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Whether the lock's holder runs: its pid is live and, when the lock says, started then. */
function holderLive(held: string): boolean {
  const [pidText, started] = held.split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return false;
  if (started === undefined) return true;
  const now = startTime(pid);
  // No /proc to ask (or it vanished meanwhile): the pid alone says it runs.
  return now === undefined || now === started;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
