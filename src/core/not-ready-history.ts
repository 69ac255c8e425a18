/**
 * How often each node went NotReady lately (the flapping gate, `blockers.flapping`). A node's Ready
 * condition keeps only its last transition, so the control plane keeps the history itself, in the
 * cluster: an annotation on the node (`kubemaint.io/not-ready`) with the times it went NotReady,
 * updated whenever the control plane reads the whole fleet (ADR 0020). Going down and back between
 * two reads still moves the condition's lastTransitionTime, so such an episode is counted too (at
 * the time it ended); several between two reads count as one. kubemaint's own reboots are not
 * flaps. Pure: the caller reads the nodes and writes the annotation back.
 */

export const ANN_NOT_READY = 'kubemaint.io/not-ready';

export interface NotReadyRecord {
  /** The Ready condition's lastTransitionTime when last read. */
  seen?: string;
  /** Its status then: 'True', 'False' or 'Unknown'. */
  status?: string;
  /** When the node went NotReady (ISO instants, oldest first), within the kept span. */
  episodes: string[];
}

/** The record in the annotation; anything unreadable is no record (anyone may write annotations). */
export function readRecord(text: string | undefined): NotReadyRecord {
  if (!text) return { episodes: [] };
  try {
    const value = JSON.parse(text) as Partial<Record<keyof NotReadyRecord, unknown>>;
    const episodes = Array.isArray(value.episodes)
      ? value.episodes.filter((e): e is string => typeof e === 'string' && isInstant(e))
      : [];
    return {
      ...(typeof value.seen === 'string' ? { seen: value.seen } : {}),
      ...(typeof value.status === 'string' ? { status: value.status } : {}),
      episodes,
    };
  } catch {
    return { episodes: [] };
  }
}

export const writeRecord = (record: NotReadyRecord): string => JSON.stringify(record);

export interface ReadyNow {
  /** The Ready condition's status ('Unknown' when it has none). */
  status: string;
  /** Its lastTransitionTime, when known. */
  since?: string;
}

/**
 * The record after reading the node now; undefined when nothing changed (no write). `ours` says a
 * transition at `since` was kubemaint's own maintenance (see `ownTransition`).
 */
export function observe(
  record: NotReadyRecord,
  ready: ReadyNow,
  options: { now: Date; keepMs: number; ours: boolean },
): NotReadyRecord | undefined {
  const seen = ready.since ?? record.seen;
  const moved = seen !== record.seen || ready.status !== record.status;
  const episodes = [...record.episodes];
  const firstLook = record.status === undefined;
  const at = ready.since ?? options.now.toISOString();
  if (moved && !options.ours) {
    // Down from Ready (Unknown → False within one episode is not another one).
    if (ready.status !== 'True' && (firstLook || record.status === 'True')) episodes.push(at);
    // Ready again with a newer transition, and we never saw it down: it went down and came back
    // between two reads.
    else if (ready.status === 'True' && record.status === 'True' && seen !== record.seen)
      episodes.push(at);
  }
  const cutoff = options.now.getTime() - options.keepMs;
  const kept = episodes.filter((e) => Date.parse(e) >= cutoff).sort();
  if (!moved && kept.length === record.episodes.length) return undefined;
  return { ...(seen === undefined ? {} : { seen }), status: ready.status, episodes: kept };
}

/**
 * Whether a Ready transition at `since` was kubemaint's own work on the node: a request is in
 * flight there now, or the last maintenance ended at or after it (within `withinMs`, the longest a
 * node may take to come back).
 */
export function ownTransition(
  since: string | undefined,
  node: { inFlight: boolean; lastMaintenanceAt?: string },
  withinMs: number,
): boolean {
  if (node.inFlight) return true;
  if (since === undefined || node.lastMaintenanceAt === undefined) return false;
  const gap = Date.parse(node.lastMaintenanceAt) - Date.parse(since);
  return gap >= 0 && gap <= withinMs;
}

/** How many times the node went NotReady within `withinMs` before `now`. */
export function timesNotReady(record: NotReadyRecord, now: Date, withinMs: number): number {
  const cutoff = now.getTime() - withinMs;
  return record.episodes.filter((e) => Date.parse(e) >= cutoff).length;
}

const isInstant = (text: string): boolean => !Number.isNaN(Date.parse(text));
