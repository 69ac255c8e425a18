/**
 * The bounded window of recent watch events (the apiserver's watch cache). A watch or a list
 * continuation from a resourceVersion older than the window gets 410 Expired, exactly the path
 * informers must handle by relisting; keeping the window bounded keeps memory flat on long runs.
 */
import type { ResourceKey, WatchEvent } from './types.js';

export interface HistoryEntry {
  rv: number;
  resource: ResourceKey;
  event: WatchEvent;
}

export class EventHistory {
  readonly #capacity: number;
  readonly #ring: (HistoryEntry | undefined)[];
  #start = 0;
  #length = 0;
  /** Highest resourceVersion no longer in the window (0 while nothing was dropped). */
  #compactedRv = 0;

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
    this.#ring = new Array<HistoryEntry | undefined>(this.#capacity);
  }

  get compactedRv(): number {
    return this.#compactedRv;
  }

  /** An empty window after `rv` (a restart): older versions are compacted. */
  startAfter(rv: number): void {
    this.#start = 0;
    this.#length = 0;
    this.#compactedRv = rv;
  }

  push(entry: HistoryEntry): void {
    if (this.#length === this.#capacity) {
      this.#compactedRv = this.#ring[this.#start]?.rv ?? this.#compactedRv;
      this.#ring[this.#start] = entry;
      this.#start = (this.#start + 1) % this.#capacity;
      return;
    }
    this.#ring[(this.#start + this.#length) % this.#capacity] = entry;
    this.#length++;
  }

  /** Events of `resource` with rv > `sinceRv`, oldest first. Caller checks `compactedRv` first. */
  since(resource: ResourceKey, sinceRv: number): HistoryEntry[] {
    let lo = 0;
    let hi = this.#length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#at(mid)?.rv ?? 0) <= sinceRv) lo = mid + 1;
      else hi = mid;
    }
    const out: HistoryEntry[] = [];
    for (let i = lo; i < this.#length; i++) {
      const entry = this.#at(i);
      if (entry?.resource === resource) out.push(entry);
    }
    return out;
  }

  #at(i: number): HistoryEntry | undefined {
    return this.#ring[(this.#start + i) % this.#capacity];
  }
}
