/**
 * Learns when pods are gone, by UID, without polling each pod: one watch on the node's pods (a DELETED
 * event, or the same name reappearing with another UID, means the pod we evicted is gone) plus a
 * periodic resync by listing, which also covers a watch that ended or missed an event. A non-404 error
 * while listing is an error, not "gone" (kubectl's rule).
 */
import type { Clock, PodInfo, PodsPort } from '../ports.js';

/** How soon a refused watch is tried again (a restarting apiserver); sooner than the resync. */
const REWATCH_MS = 1_000;

export interface GoneWatch {
  stop(): void;
  /** List once now and report what disappeared. */
  resync(): Promise<void>;
}

export interface GoneWatchOptions {
  node: string;
  /** UIDs the caller still waits for. */
  wanted: () => Iterable<string>;
  onGone: (uid: string) => void;
  /** Every pod state seen (for deletionTimestamp and progress). */
  onSeen?: (pod: PodInfo) => void;
  onError?: (error: unknown) => void;
  /** @default 2_000 */
  resyncMs?: number;
}

export async function watchGone(
  pods: PodsPort,
  clock: Clock,
  options: GoneWatchOptions,
): Promise<GoneWatch> {
  const uidByName = new Map<string, string>();
  const stopped = new AbortController();
  let stopWatch: (() => void) | undefined;

  const seen = (pod: PodInfo): void => {
    const key = `${pod.namespace}/${pod.name}`;
    const previous = uidByName.get(key);
    // Same name, new UID: the pod we knew was deleted and replaced (StatefulSet, static pod).
    if (previous !== undefined && previous !== pod.uid) options.onGone(previous);
    uidByName.set(key, pod.uid);
    options.onSeen?.(pod);
  };

  const startWatch = async (): Promise<void> => {
    if (stopped.signal.aborted) return;
    try {
      stopWatch = await pods.watchPodsOnNode(
        options.node,
        (event) => {
          if (event.type === 'DELETED') {
            uidByName.delete(`${event.pod.namespace}/${event.pod.name}`);
            options.onGone(event.pod.uid);
          } else seen(event.pod);
        },
        (error) => {
          if (stopped.signal.aborted) return;
          if (error !== undefined) options.onError?.(error);
          // The stream ended (server timeout, dropped connection): resync, then watch again.
          void resync().then(() => clock.sleep(200, stopped.signal).then(startWatch));
        },
      );
    } catch (error) {
      options.onError?.(error);
      // The apiserver restarting refuses the new watch: try again, the resync covers meanwhile.
      void clock.sleep(REWATCH_MS, stopped.signal).then(startWatch);
    }
  };

  const resync = async (): Promise<void> => {
    try {
      const present = await pods.listPodsOnNode(options.node);
      const uids = new Set(present.map((p) => p.uid));
      for (const pod of present) seen(pod);
      for (const uid of [...options.wanted()]) if (!uids.has(uid)) options.onGone(uid);
    } catch (error) {
      options.onError?.(error);
    }
  };

  const loop = async (): Promise<void> => {
    while (!stopped.signal.aborted) {
      await clock.sleep(options.resyncMs ?? 2_000, stopped.signal);
      if (!stopped.signal.aborted) await resync();
    }
  };

  await startWatch();
  void loop();
  return {
    stop: () => {
      stopped.abort();
      stopWatch?.();
    },
    resync,
  };
}
