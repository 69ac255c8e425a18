/**
 * Watch fan-out for the in-process store. Events are delivered synchronously after each write, in
 * resourceVersion order even when a handler writes (nested writes queue up behind the current
 * delivery). A subscription from a resourceVersion first replays the retained history, or fails
 * with 410 Expired when that version has been compacted away.
 */
import { badRequest, expired } from './status-errors.js';
import { clone } from './store-meta.js';
import type { EventHistory } from './store-history.js';
import type { ResourceKey, WatchEvent } from './types.js';

/** A private copy for an in-process subscriber (controllers do not need the previous object). */
function copyEvent(event: WatchEvent): WatchEvent {
  const { previous: _previous, ...rest } = event;
  return clone(rest);
}

type Handler = (event: WatchEvent, rv: number) => void;

export class WatchHub {
  readonly #handlers = new Map<ResourceKey, Set<Handler>>();
  readonly #queue: { resource: ResourceKey; event: WatchEvent; rv: number }[] = [];
  readonly #history: EventHistory;
  readonly #reportError: (error: unknown, event: WatchEvent) => void;
  #delivering = false;

  constructor(history: EventHistory, reportError: (error: unknown, event: WatchEvent) => void) {
    this.#history = history;
    this.#reportError = reportError;
  }

  publish(resource: ResourceKey, event: WatchEvent, rv: number): void {
    this.#queue.push({ resource, event, rv });
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        for (const handler of this.#handlers.get(next.resource) ?? []) {
          try {
            handler(next.event, next.rv);
          } catch (error) {
            this.#reportError(error, next.event);
          }
        }
      }
    } finally {
      this.#delivering = false;
    }
  }

  /** `sinceRv` undefined or '' follows from `currentRv` on. Returns the unsubscribe function. */
  subscribe(
    resource: ResourceKey,
    sinceRv: string | undefined,
    currentRv: number,
    handler: (event: WatchEvent) => void,
    shared: boolean,
  ): () => void {
    let last = currentRv;
    if (sinceRv !== undefined && sinceRv !== '') {
      const since = Number(sinceRv);
      if (!Number.isInteger(since) || since < 0) {
        throw badRequest(`invalid resource version: ${JSON.stringify(sinceRv)}`);
      }
      const compacted = this.#history.compactedRv;
      if (since < compacted) throw expired(`too old resource version: ${since} (${compacted + 1})`);
      last = since;
    }
    // Deliveries still queued when we subscribe would repeat the replay: skip what was already sent.
    const wrapped: Handler = (event, eventRv) => {
      if (eventRv <= last) return;
      last = eventRv;
      handler(shared ? event : copyEvent(event));
    };
    for (const entry of this.#history.since(resource, last)) wrapped(entry.event, entry.rv);
    let set = this.#handlers.get(resource);
    if (!set) this.#handlers.set(resource, (set = new Set()));
    set.add(wrapped);
    return () => void this.#handlers.get(resource)?.delete(wrapped);
  }
}
