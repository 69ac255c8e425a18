/**
 * One watch that keeps going: list (for the resourceVersion and the objects' current state), then
 * watch from that version with bookmarks; a stream that ends is re-opened from the last version seen,
 * a 410 Gone (in-stream ERROR or HTTP) re-lists, and any other error waits with exponential backoff
 * before trying again. It reports only changes that matter, judged by a caller's fingerprint of the
 * object, so a kubelet's heartbeat (a new lastHeartbeatTime every few seconds) is not a change.
 */
import type { Watch } from '@kubernetes/client-node';
import type { Logger } from '../../log.js';

export interface KubeObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

export interface WatchStreamOptions {
  /** What this stream is, for logs and change reasons: `nodes kubemaint.io/state`. */
  name: string;
  watch: Watch;
  /** Collection path, e.g. `/api/v1/nodes`. */
  path: string;
  query: Record<string, string>;
  /** One list call with the same selectors. */
  list: () => Promise<{ resourceVersion: string; items: KubeObject[] }>;
  /** What about the object matters; a change of fingerprint is a change. */
  fingerprint: (object: KubeObject) => string;
  /**
   * Whether a change from one fingerprint to the next is one someone waits on (a node back from its
   * reboot): it is passed on at once, not held for a burst to end. @default never
   */
  urgent?: (before: string, after: string) => boolean;
  /** A change, or `relisted` after a gap in which changes may have been missed. */
  onChange: (change: string, detail: ChangeDetail) => void;
  log: Logger;
  /** @default { initialMs: 500, maxMs: 30_000 } */
  backoff?: { initialMs: number; maxMs: number };
  /** Server-side stream lifetime, renewed from the last version. @default 300 */
  timeoutSeconds?: number;
  /** Told whether the apiserver answered each list and watch request (serve's readiness). */
  onContact?: (outcome: { ok: true } | { ok: false; error: unknown }) => void;
  /** Told every object as the stream sees it, for a cache of them (node-cache.ts). */
  keep?: Keeper;
}

/**
 * What a cache of the watched objects is told: every list (it replaces what was kept), every
 * object added, changed or deleted, and the version the stream has seen up to (events, bookmarks).
 */
export interface Keeper {
  listed(items: readonly KubeObject[], resourceVersion: string): void;
  put(object: KubeObject): void;
  remove(object: KubeObject): void;
  seen(resourceVersion: string): void;
}

export interface ChangeDetail {
  /** The object's `namespace/name` (empty for `relisted`). */
  key: string;
  /** The object's resourceVersion in the event (absent for `relisted`). */
  resourceVersion?: string;
  urgent: boolean;
}

export interface WatchStream {
  /** Settles once the first list succeeded: changes from then on are reported. */
  listed: Promise<void>;
  stop(): void;
}

const keyOf = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export function startWatchStream(options: WatchStreamOptions): WatchStream {
  const backoff = options.backoff ?? { initialMs: 500, maxMs: 30_000 };
  const known = new Map<string, string>();
  let resourceVersion: string | undefined;
  let delayMs = backoff.initialMs;
  let stopped = false;
  let controller: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  let listedOnce = false;
  let markListed: () => void = () => undefined;
  const listed = new Promise<void>((resolve) => (markListed = resolve));

  const later = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => void cycle(), ms);
  };
  const contact = options.onContact ?? (() => undefined);
  const retryAfterError = (error: unknown, what: string) => {
    contact({ ok: false, error });
    options.log.warn(
      {
        stream: options.name,
        err: error instanceof Error ? error.message : String(error),
        retryInMs: delayMs,
      },
      `watch ${what} failed; retrying`,
    );
    later(delayMs);
    delayMs = Math.min(delayMs * 2, backoff.maxMs);
  };

  const relist = async (): Promise<void> => {
    const listed = await options.list();
    contact({ ok: true });
    const before = new Map(known);
    known.clear();
    let changed = false;
    for (const item of listed.items) {
      const print = options.fingerprint(item);
      known.set(keyOf(item), print);
      if (before.get(keyOf(item)) !== print) changed = true;
    }
    if (before.size !== known.size) changed = true;
    resourceVersion = listed.resourceVersion;
    options.keep?.listed(listed.items, listed.resourceVersion);
    // The first list is the starting point; a later one closes a gap in which we saw nothing.
    if (listedOnce && changed)
      options.onChange(`${options.name}: relisted`, { key: '', urgent: false });
    listedOnce = true;
    markListed();
  };

  const onEvent = (type: string, object: KubeObject & { code?: number; message?: string }) => {
    if (stopped) return;
    if (type === 'ERROR') {
      if (object.code === 410) resourceVersion = undefined;
      else options.log.warn({ stream: options.name, status: object }, 'watch error event');
      return;
    }
    const rv = object.metadata?.resourceVersion;
    if (rv) resourceVersion = rv;
    delayMs = backoff.initialMs;
    if (type !== 'BOOKMARK') {
      if (type === 'DELETED') options.keep?.remove(object);
      else options.keep?.put(object);
    }
    if (rv) options.keep?.seen(rv);
    if (type === 'BOOKMARK') return;
    const key = keyOf(object);
    const at = rv ? { resourceVersion: rv } : {};
    if (type === 'DELETED') {
      known.delete(key);
      options.onChange(`${options.name}: ${key} deleted`, { key, ...at, urgent: false });
      return;
    }
    const print = options.fingerprint(object);
    const before = known.get(key);
    if (before === print) return;
    known.set(key, print);
    const urgent = before !== undefined && (options.urgent?.(before, print) ?? false);
    options.onChange(`${options.name}: ${key} ${type === 'ADDED' ? 'added' : 'changed'}`, {
      key,
      ...at,
      urgent,
    });
  };

  const cycle = async (): Promise<void> => {
    if (stopped) return;
    if (resourceVersion === undefined) {
      try {
        await relist();
      } catch (error) {
        retryAfterError(error, 'list');
        return;
      }
    }
    if (stopped || resourceVersion === undefined) return;
    let failed = false;
    const openedAt = Date.now();
    try {
      controller = await options.watch.watch(
        options.path,
        {
          ...options.query,
          resourceVersion,
          allowWatchBookmarks: 'true',
          timeoutSeconds: String(options.timeoutSeconds ?? 300),
        },
        (type, object) => onEvent(type, object as KubeObject),
        (error: unknown) => {
          if (stopped || failed) return;
          failed = true;
          const status = (error as { statusCode?: number } | null)?.statusCode;
          if (status === 410) resourceVersion = undefined;
          // client-node's 30 s inactivity timeout on a quiet stream is a normal end, not a failure.
          const quiet = error instanceof Error && error.name === 'TimeoutError';
          if (error && !quiet && status !== 410) {
            retryAfterError(error, 'stream');
            return;
          }
          options.log.debug({ stream: options.name, gone: status === 410 }, 'watch stream ended');
          // A stream that ends as soon as it opens (a proxy cutting it) must not become a busy loop.
          const lived = Date.now() - openedAt;
          if (lived >= 1_000) delayMs = backoff.initialMs;
          later(lived >= 1_000 || resourceVersion === undefined ? 0 : delayMs);
          if (lived < 1_000) delayMs = Math.min(delayMs * 2, backoff.maxMs);
        },
      );
      contact({ ok: true });
      // stop() ran while the request was being answered: it could not abort this one yet.
      if (stopped) controller.abort();
    } catch (error) {
      // Before any request went out (credentials could not be applied, no cluster in the config).
      retryAfterError(error, 'start');
    }
  };

  void cycle();
  return {
    listed,
    stop() {
      stopped = true;
      markListed();
      clearTimeout(timer);
      controller?.abort();
    },
  };
}
