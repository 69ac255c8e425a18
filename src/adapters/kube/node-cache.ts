/**
 * Every Node as a watch last saw it, for the reads of the whole fleet `serve` makes again and again
 * (ADR 0059): dispatch's health gates (maxUnhealthyNodes, flapping, soak) on every tick a request
 * waits for a slot, and the status page's view. On 5,000 nodes each such list was five pages and
 * ~400 ms of kube-apiserver's time, several times per slot hand-off; from the cache it is none.
 *
 * One list (paginated), then one watch from its resourceVersion, resumed after a stream ends and
 * re-listed after a 410 (watch-stream.ts). Each Node is kept trimmed to what a NodeView is made of,
 * so memory is one small object per node, not the kubelet's image list and addresses.
 *
 * A read is as current as a list would be for what this process wrote: a node write answers with
 * its resourceVersion (`wrote`), and a read waits until the watch has seen that version (the soak
 * gate reads the `last-maintenance` annotation the same tick wrote). When the cache cannot say it
 * is current (not listed yet, the stream broken, a write not seen within `waitMs`, versions that are
 * not etcd revisions), `nodes()` answers undefined and the caller lists, as without a cache.
 */
import { CoreV1Api, type KubeConfig, type V1Node, Watch } from '@kubernetes/client-node';
import type { Logger } from '../../log.js';
import { NODE_PAGE_SIZE } from './nodes.js';
import { inPages } from './watch-trigger.js';
import { startWatchStream, type KubeObject, type WatchStreamOptions } from './watch-stream.js';

export interface NodeCache {
  /** Every node, or undefined when the cache cannot say it is current (list them instead). */
  nodes(): Promise<V1Node[] | undefined>;
  /** This process wrote a node and the API answered with this resourceVersion. */
  wrote(resourceVersion: string): void;
  /** Settles once the first list is in (or the cache was stopped). */
  listed: Promise<void>;
  stop(): void;
}

export interface NodeCacheOptions {
  log: Logger;
  /** How long a read waits for the watch to catch up with a write. @default 2_000 */
  waitMs?: number;
  /** @default { initialMs: 500, maxMs: 30_000 } */
  backoff?: WatchStreamOptions['backoff'];
}

/** What toNodeView reads of a Node (control-cluster.ts, nodes.ts), and nothing else. */
export function trimNode(node: V1Node): V1Node {
  const { metadata, spec, status } = node;
  const info = status?.nodeInfo;
  return {
    metadata: {
      ...(metadata?.name === undefined ? {} : { name: metadata.name }),
      ...(metadata?.uid === undefined ? {} : { uid: metadata.uid }),
      ...(metadata?.resourceVersion === undefined
        ? {}
        : { resourceVersion: metadata.resourceVersion }),
      ...(metadata?.labels ? { labels: metadata.labels } : {}),
      ...(metadata?.annotations ? { annotations: metadata.annotations } : {}),
    },
    spec: {
      ...(spec?.unschedulable === undefined ? {} : { unschedulable: spec.unschedulable }),
      ...(spec?.taints ? { taints: spec.taints } : {}),
    },
    status: {
      conditions: (status?.conditions ?? []).map((c) => ({
        type: c.type,
        status: c.status,
        ...(c.lastTransitionTime === undefined ? {} : { lastTransitionTime: c.lastTransitionTime }),
      })),
      ...(info
        ? {
            nodeInfo: {
              bootID: info.bootID,
              kubeletVersion: info.kubeletVersion,
              osImage: info.osImage,
            } as NonNullable<V1Node['status']>['nodeInfo'],
          }
        : {}),
    },
  };
}

/** An etcd revision (a decimal integer), or undefined for a version that is not one. */
const revision = (resourceVersion: string): bigint | undefined =>
  /^\d+$/.test(resourceVersion) ? BigInt(resourceVersion) : undefined;

export function watchNodes(kubeConfig: KubeConfig, options: NodeCacheOptions): NodeCache {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const waitMs = options.waitMs ?? 2_000;
  const kept = new Map<string, V1Node>();
  let listedOnce = false;
  // Whether the stream is known to be whole: false from a failed request until one succeeds.
  let whole = false;
  let comparable = true;
  let seen = 0n;
  let wanted = 0n;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  };
  const see = (resourceVersion: string) => {
    const at = revision(resourceVersion);
    if (at === undefined) comparable = false;
    else if (at > seen) seen = at;
    wake();
  };
  const nameOf = (o: KubeObject) => o.metadata?.name ?? '';
  const stream = startWatchStream({
    name: 'nodes (cache)',
    watch: new Watch(kubeConfig),
    path: '/api/v1/nodes',
    query: {},
    list: () => inPages('list nodes (cache)', (page) => core.listNode(page), NODE_PAGE_SIZE),
    // Nothing is reported: the cache is read, it wakes no one (the trigger's watches do).
    fingerprint: () => '',
    onChange: () => undefined,
    log: options.log,
    ...(options.backoff ? { backoff: options.backoff } : {}),
    onContact: (outcome) => {
      whole = outcome.ok;
      wake();
    },
    keep: {
      listed(items, resourceVersion) {
        kept.clear();
        for (const item of items) kept.set(nameOf(item), trimNode(item));
        listedOnce = true;
        whole = true;
        see(resourceVersion);
      },
      put: (object) => void kept.set(nameOf(object), trimNode(object)),
      remove: (object) => void kept.delete(nameOf(object)),
      seen: see,
    },
  });
  const current = () => listedOnce && whole && comparable && seen >= wanted;
  const caughtUp = async (): Promise<boolean> => {
    if (current()) return true;
    const deadline = Date.now() + waitMs;
    while (!current() && Date.now() < deadline && !stopped) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return current();
  };
  let stopped = false;
  return {
    async nodes() {
      if (!(await caughtUp())) {
        options.log.debug(
          { listed: listedOnce, whole, comparable, seen: String(seen), wanted: String(wanted) },
          'node cache not current; listing instead',
        );
        return undefined;
      }
      return [...kept.values()];
    },
    wrote(resourceVersion) {
      const at = revision(resourceVersion);
      if (at === undefined) comparable = false;
      else if (at > wanted) wanted = at;
    },
    listed: stream.listed,
    stop() {
      stopped = true;
      stream.stop();
      wake();
    },
  };
}
