/**
 * The objects of a sim's saved state, kept as etcd keeps them in spirit: a snapshot
 * (`snapshot.json`, replaced atomically) and an append-only journal of every write since
 * (`journal.ndjson`, one JSON line per committed write, in resourceVersion order). Loading reads the
 * snapshot and replays the journal's lines after it; a last line without its newline is a write the
 * process died in the middle of, and is dropped (the client never got its answer). A snapshot is
 * taken at start, every `compactAfter` journal lines and at a clean stop; the journal then starts
 * empty. ADR 0030 says why this format and cadence.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { CommitRecord, RestoredObjects } from '../store.js';
import type { KObject, ResourceKey } from '../types.js';
import { checkHeader, readJsonFile, unreadableState, writeFileAtomic } from './files.js';

export const SNAPSHOT_FILE = 'snapshot.json';
export const JOURNAL_FILE = 'journal.ndjson';
const KIND = 'KubesimSnapshot';
const VERSION = 1;
const TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED']);

/** What the cluster was first seeded with: a restart must not quietly become another cluster. */
export interface SeedRecord {
  scenario: string;
  nodes: number;
}

export interface LoadedObjects extends RestoredObjects {
  seed: SeedRecord | undefined;
  /** The API server's port when it was saved (a restart serves there again if it is free). */
  port: number | undefined;
  /** Sim time of the last saved write. */
  simTime: Date | undefined;
  /** A torn last journal line was dropped. */
  droppedTornWrite: boolean;
}

interface Entry {
  resource: ResourceKey;
  object: KObject;
}

const keyOf = (resource: ResourceKey, object: KObject): string =>
  `${resource}|${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function entryOf(value: unknown): Entry | undefined {
  if (!isObject(value) || typeof value['resource'] !== 'string') return undefined;
  const object = value['object'];
  if (!isObject(object) || !isObject(object['metadata'])) return undefined;
  if (typeof object['metadata']['name'] !== 'string') return undefined;
  return { resource: value['resource'], object: object as unknown as KObject };
}

export function loadObjects(dir: string): LoadedObjects | undefined {
  const snapshotPath = join(dir, SNAPSHOT_FILE);
  const journalPath = join(dir, JOURNAL_FILE);
  const raw = readJsonFile(snapshotPath, dir);
  if (raw === undefined && !existsSync(journalPath)) return undefined;
  const objects = new Map<string, Entry>();
  let rv = 0;
  let seed: SeedRecord | undefined;
  let port: number | undefined;
  let simTime: number | undefined;
  if (raw !== undefined) {
    const header = checkHeader(raw, snapshotPath, dir, KIND, VERSION);
    const bad = (what: string) => unreadableState(snapshotPath, what, dir);
    if (!Number.isSafeInteger(header['resourceVersion']) || Number(header['resourceVersion']) < 0)
      throw bad('has no resourceVersion');
    rv = Number(header['resourceVersion']);
    if (!Array.isArray(header['objects'])) throw bad('has no objects list');
    header['objects'].forEach((item: unknown, i) => {
      const entry = entryOf(item);
      if (!entry) throw bad(`has an object without resource or metadata.name (objects[${i}])`);
      objects.set(keyOf(entry.resource, entry.object), entry);
    });
    const s = header['seed'];
    if (isObject(s) && typeof s['scenario'] === 'string' && typeof s['nodes'] === 'number')
      seed = { scenario: s['scenario'], nodes: s['nodes'] };
    if (typeof header['port'] === 'number') port = header['port'];
    if (typeof header['simTime'] === 'string') simTime = Date.parse(header['simTime']);
  }
  const replayed = replayJournal(journalPath, dir, rv, objects);
  rv = Math.max(rv, replayed.rv);
  if (replayed.simTime !== undefined) simTime = Math.max(simTime ?? 0, replayed.simTime);
  return {
    resourceVersion: rv,
    objects: [...objects.values()],
    seed,
    port,
    simTime: simTime === undefined || Number.isNaN(simTime) ? undefined : new Date(simTime),
    droppedTornWrite: replayed.torn,
  };
}

function replayJournal(
  path: string,
  dir: string,
  after: number,
  objects: Map<string, Entry>,
): { rv: number; simTime: number | undefined; torn: boolean } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { rv: after, simTime: undefined, torn: false };
    throw unreadableState(path, `cannot be read: ${(error as Error).message}`, dir, error);
  }
  const lines = text.split('\n');
  // Everything before the last newline was written whole; after it, at most a torn write.
  const torn = (lines.pop() ?? '') !== '';
  let rv = after;
  let simTime: number | undefined;
  lines.forEach((line, i) => {
    const bad = (what: string) => unreadableState(path, `line ${i + 1} ${what}`, dir);
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw bad('is not valid JSON');
    }
    const entry = entryOf(record);
    const fields = isObject(record) ? record : {};
    if (!entry || !Number.isSafeInteger(fields['rv']) || !TYPES.has(String(fields['type'])))
      throw bad('is not a journal record (rv, type, resource, object)');
    const lineRv = Number(fields['rv']);
    if (lineRv <= after) return; // already in the snapshot
    if (lineRv <= rv) throw bad(`goes back to resourceVersion ${lineRv} after ${rv}`);
    rv = lineRv;
    const key = keyOf(entry.resource, entry.object);
    if (fields['type'] === 'DELETED') objects.delete(key);
    else objects.set(key, entry);
    if (typeof fields['at'] === 'string') simTime = Date.parse(fields['at']);
  });
  return { rv, simTime, torn };
}

export interface JournalHeader {
  seed: SeedRecord;
  port: number;
}

/**
 * Mirrors every committed write (`track`, from the store's onCommit) and, once `start`ed, appends it
 * to the journal. The mirror holds the store's own objects (no copies), so a snapshot costs one
 * serialization, not a second copy of the cluster in memory.
 */
export class ObjectJournal {
  readonly #dir: string;
  readonly #now: () => Date;
  readonly #compactAfter: number;
  readonly #objects = new Map<string, Entry>();
  #rv = 0;
  #fd: number | undefined;
  #lines = 0;
  #header: JournalHeader | undefined;

  constructor(dir: string, options: { now: () => Date; compactAfter?: number }) {
    this.#dir = dir;
    this.#now = options.now;
    this.#compactAfter = options.compactAfter ?? 20_000;
  }

  /** What the store starts with (restored objects), before any write is tracked. */
  seed(restored: RestoredObjects): void {
    for (const entry of restored.objects)
      this.#objects.set(keyOf(entry.resource, entry.object), entry);
    this.#rv = restored.resourceVersion;
  }

  track(record: CommitRecord): void {
    const key = keyOf(record.resource, record.object);
    if (record.type === 'DELETED') this.#objects.delete(key);
    else this.#objects.set(key, { resource: record.resource, object: record.object });
    this.#rv = record.rv;
    if (this.#fd === undefined) return;
    const line = JSON.stringify({
      rv: record.rv,
      at: this.#now().toISOString(),
      type: record.type,
      resource: record.resource,
      object: record.object,
    });
    writeSync(this.#fd, `${line}\n`);
    if (++this.#lines >= this.#compactAfter) this.#compact();
  }

  /** Snapshot what is there now and journal every write from here on. */
  start(header: JournalHeader): void {
    this.#header = header;
    this.#compact();
  }

  /** A last snapshot (the next start reads no journal) and the journal closed. */
  close(): void {
    if (this.#fd === undefined) return;
    this.#compact();
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Snapshot first, then empty the journal: a crash in between replays lines the snapshot holds. */
  #compact(): void {
    const header = this.#header;
    if (!header) return;
    const objects = [...this.#objects.values()];
    writeFileAtomic(
      join(this.#dir, SNAPSHOT_FILE),
      `${JSON.stringify({
        kind: KIND,
        version: VERSION,
        resourceVersion: this.#rv,
        simTime: this.#now().toISOString(),
        seed: header.seed,
        port: header.port,
        objects,
      })}\n`,
    );
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = openSync(join(this.#dir, JOURNAL_FILE), 'w', 0o600);
    this.#lines = 0;
  }
}
