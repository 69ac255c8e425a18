/**
 * A sim's state directory (`createSim({ state: DIR })`, `kubemaint sim --state DIR`): what makes a
 * restarted sim the same cluster. `credentials.json` (CA, serving certificate, admin token,
 * service-account signing key), `snapshot.json` and `journal.ndjson` (the objects, their uids and
 * resourceVersions, saved-objects.ts), and `lock` (the pid of the sim using it: two sims writing
 * one journal would corrupt it). ADR 0030.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

function takeLock(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  const mine = String(process.pid);
  try {
    writeFileSync(path, mine, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw unreadableState(path, `cannot be written: ${(error as Error).message}`, dir, error);
    }
    const holder = Number(readFileSync(path, 'utf8').trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new SimError(
        'usage',
        `another sim (pid ${holder}) is using the saved state in ${dir}`,
        { hint: 'stop that sim first, or give this one another --state directory' },
      );
    }
    // Left by a sim that died (or by this process, which is not using it now): take it over.
    writeFileSync(path, mine);
  }
  return () => rmSync(path, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
