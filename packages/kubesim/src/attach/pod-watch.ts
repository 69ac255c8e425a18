/**
 * The pods bound to one node, as its kubelet watches them: list and watch `/api/v1/pods` with
 * `fieldSelector=spec.nodeName=<node>` (the only pod list the Node authorizer allows a node), through
 * client-node's ListWatch, which re-lists after a 410 and reconnects a quiet stream. A failed list or
 * watch is started again after a backoff instead of ending the kubelet's view.
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

export interface PodWatch {
  /** The first list: the node's pods when the watch started. */
  listed: Promise<KObject[]>;
  stop(): void;
}

// The objects are the API's JSON as it came (timestamps stay strings): KObject, whatever client-node's
// generic type says.
type Listed = KubernetesListObject<KubernetesObject>;
const asPod = (object: KubernetesObject): KObject => object as unknown as KObject;

export function watchNodePods(
  client: KubeJson,
  node: string,
  onEvent: (type: PodEventType, pod: KObject) => void,
  log: Logger,
): PodWatch {
  const fieldSelector = `spec.nodeName=${node}`;
  let markListed: (pods: KObject[]) => void = () => undefined;
  let failList: (error: unknown) => void = () => undefined;
  const listed = new Promise<KObject[]>((resolve, reject) => {
    markListed = resolve;
    failList = reject;
  });
  let first = true;
  let stopped = false;
  let delayMs = 500;
  let timer: NodeJS.Timeout | undefined;

  const list = async (): Promise<Listed> => {
    const answer = await client.request<Listed>('GET', '/api/v1/pods', {
      query: { fieldSelector },
    });
    if (first) markListed(answer.items.map(asPod));
    first = false;
    delayMs = 500;
    return answer;
  };
  const informer = new ListWatch<KubernetesObject>(
    '/api/v1/pods',
    new Watch(client.config),
    list,
    false,
    undefined,
    fieldSelector,
  );
  informer.on('add', (pod) => onEvent('ADDED', asPod(pod)));
  informer.on('update', (pod) => onEvent('MODIFIED', asPod(pod)));
  informer.on('delete', (pod) => onEvent('DELETED', asPod(pod)));
  informer.on('error', (error: unknown) => {
    if (stopped) return;
    if (first) failList(error);
    log.warn(
      { node, err: error instanceof Error ? error.message : String(error), retryInMs: delayMs },
      'sim kubelet pod watch failed; restarting',
    );
    timer = setTimeout(() => void informer.start(), delayMs);
    delayMs = Math.min(delayMs * 2, 30_000);
  });
  void informer.start();

  return {
    listed,
    stop() {
      stopped = true;
      clearTimeout(timer);
      void informer.stop();
    },
  };
}
