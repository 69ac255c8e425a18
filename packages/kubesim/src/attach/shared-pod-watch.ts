/**
 * The pods bound to the attached fleet's nodes, read through ONE list and watch of `/api/v1/pods` in
 * every namespace with `fieldSelector=spec.nodeName!=` (bound pods only), as the kubeconfig's own
 * identity, and handed to each node by its pod's `spec.nodeName` (ADR 0058). One stream per node, as a
 * real kubelet has, meant 1,000 HTTPS watches and 1,000 lists at start for a 1,000-node fleet; no field
 * selector picks "one of these nodes", so the stream carries every bound pod and pods of nodes not
 * attached here are dropped. Only this read is shared: each node still writes as itself.
 *
 * client-node's ListWatch re-lists after a 410 and reconnects a quiet stream, and its cache answers a
 * node that subscribes after the first list without another request. A failed list or watch is
 * started again after a backoff instead of ending the fleet's view.
 */
import {
  ListWatch,
  Watch,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { Logger } from '../log.js';
import type { KObject } from '../types.js';
import type { KubeJson } from './kube-json.js';

export type PodEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type PodEvents = (type: PodEventType, pod: KObject) => void;

/** One node's share of the watch. */
export interface NodePods {
  /** The node's pods in the shared cache, once the first list is in. */
  listed: Promise<KObject[]>;
  /** No more events for this node. */
  stop(): void;
}

export interface SharedPodWatch {
  /** Resolves once the first list is in the cache; rejects if that list fails. */
  synced: Promise<void>;
  /** From now on, events of pods bound to `node` go to `onEvent`; one subscriber per node. */
  subscribe(node: string, onEvent: PodEvents): NodePods;
  stop(): void;
}

export const BOUND_PODS = 'spec.nodeName!=';

// The objects are the API's JSON as it came (timestamps stay strings): KObject, whatever client-node's
// generic type says.
type Listed = KubernetesListObject<KubernetesObject>;
const asPod = (object: KubernetesObject): KObject => object as unknown as KObject;
const nodeOf = (pod: KObject): unknown => pod.spec?.['nodeName'];

export function sharedPodWatch(
  client: KubeJson,
  log: Logger,
  /** @default a Watch on the client's KubeConfig (tests pass a scripted one) */
  watch: Watch = new Watch(client.config),
): SharedPodWatch {
  const subscribers = new Map<string, PodEvents>();
  let markSynced: () => void = () => undefined;
  let failSynced: (error: unknown) => void = () => undefined;
  const synced = new Promise<void>((resolve, reject) => {
    markSynced = resolve;
    failSynced = reject;
  });
  // The failure reaches whoever awaits it; nobody waiting yet is no crash.
  synced.catch(() => undefined);
  let listedOnce = false;
  let stopped = false;
  let delayMs = 500;
  let timer: NodeJS.Timeout | undefined;

  const list = async (): Promise<Listed> => {
    const answer = await client.request<Listed>('GET', '/api/v1/pods', {
      query: { fieldSelector: BOUND_PODS },
    });
    listedOnce = true;
    delayMs = 500;
    return answer;
  };
  const informer = new ListWatch<KubernetesObject>(
    '/api/v1/pods',
    watch,
    list,
    false,
    undefined,
    BOUND_PODS,
  );
  const dispatch = (type: PodEventType) => (object: KubernetesObject) => {
    const pod = asPod(object);
    const node = nodeOf(pod);
    if (typeof node === 'string') subscribers.get(node)?.(type, pod);
  };
  informer.on('add', dispatch('ADDED'));
  informer.on('update', dispatch('MODIFIED'));
  informer.on('delete', dispatch('DELETED'));
  const restart = (error: unknown): void => {
    if (stopped) return;
    if (!listedOnce) failSynced(error);
    log.warn(
      { err: error instanceof Error ? error.message : String(error), retryInMs: delayMs },
      'sim kubelets pod watch failed; restarting',
    );
    timer = setTimeout(() => void start(), delayMs);
    delayMs = Math.min(delayMs * 2, 30_000);
  };
  // start() settles once the list is in the cache and the watch is asked for, or either failed.
  const start = async (): Promise<void> => {
    try {
      await informer.start();
    } catch (error) {
      // Thrown before the watch request was made (its credentials), so no 'error' event came.
      restart(error);
      return;
    }
    // ListWatch opens its watch after a list that was in flight when it was stopped: close it.
    if (stopped) void informer.stop();
    if (listedOnce) markSynced();
  };
  informer.on('error', restart);
  void start();

  return {
    synced,
    subscribe(node, onEvent) {
      if (subscribers.has(node)) throw new RangeError(`node ${node} already subscribed`);
      subscribers.set(node, onEvent);
      return {
        listed: synced.then(() =>
          informer
            .list()
            .map(asPod)
            .filter((pod) => nodeOf(pod) === node),
        ),
        stop() {
          if (subscribers.get(node) === onEvent) subscribers.delete(node);
        },
      };
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      subscribers.clear();
      void informer.stop();
    },
  };
}
