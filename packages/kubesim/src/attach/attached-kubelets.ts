/**
 * The attached fleet: per node name, a client acting as that node, its registration (create the Node,
 * or take over the one of that name, as a restarted kubelet finds its Node still there), its share of
 * the fleet's one pod watch (shared-pod-watch.ts, read as the kubeconfig's own identity), and the sim's
 * one kubelet (kubelet.ts) on the HTTP KubeletApi. It is a `Kubelets` like the embedded fleet, so the
 * host model and its endpoint drive it unchanged.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { isApiError } from './api-errors.js';
import { once, withRetry } from './api-errors.js';
import { SimError } from '../errors.js';
import type { Logger } from '../log.js';
import type { JobsRunner } from '../jobs-runner.js';
import { createKubelet, type Kubelet } from '../kubelet.js';
import type { KubeletContext } from '../kubelet-api.js';
import { registeredNode } from '../kubelet-objects.js';
import type { Kubelets } from '../kubelets.js';
import type { KObject } from '../types.js';
import { kubeJson, type KubeJson } from './kube-json.js';
import { httpKubeletApi, type HttpKubeletApi } from './kubelet-http-api.js';
import { kubeConfigAs, nodeIdentity } from './node-identity.js';
import { sharedPodWatch, type NodePods } from './shared-pod-watch.js';

export interface AttachedKubelets extends Kubelets {
  /** The client acting as `node` (for what its kubelet asks on its pods' behalf). */
  clientFor(node: string): KubeJson | undefined;
  /** Resolves once every write the kubelets asked for so far has been answered. */
  flushed(): Promise<void>;
}

interface Attached {
  client: KubeJson;
  api: HttpKubeletApi;
  pods: NodePods;
  kubelet: Kubelet;
}

/** Create the Node as the node itself; an existing one of that name is taken over. */
async function register(
  client: KubeJson,
  name: string,
  labels: Record<string, string>,
  maxPods: number | undefined,
): Promise<KObject> {
  try {
    return await once(`register node ${name}`, () =>
      client.request<KObject>('POST', '/api/v1/nodes', {
        body: registeredNode(name, labels, maxPods),
      }),
    );
  } catch (error) {
    if (isApiError(error, 'forbidden')) {
      throw new SimError(
        'config_invalid',
        `cannot register as system:node:${name} (the kubeconfig needs the impersonate verb on users and groups, the apiserver the Node authorizer): ${error.message}`,
        { cause: error },
      );
    }
    if (!isApiError(error, 'already-exists')) throw error;
    return withRetry(`get node ${name}`, () =>
      client.request<KObject>('GET', `/api/v1/nodes/${encodeURIComponent(name)}`),
    );
  }
}

/** The fleet reads its pods as the kubeconfig's own identity, not as a node (ADR 0058). */
function podsUnreadable(error: unknown): unknown {
  if (!isApiError(error, 'forbidden')) return error;
  return new SimError(
    'config_invalid',
    `cannot list and watch pods in all namespaces as the kubeconfig's own identity (the attached nodes share one pod watch): ${error.message}`,
    { cause: error },
  );
}

export async function startAttachedKubelets(input: {
  base: KubeConfig;
  names: readonly string[];
  /** Labels every node registers with. */
  labels: Record<string, string>;
  /** Pods each node takes (the kubelet's --max-pods). @default 110 */
  maxPods?: number;
  version: string;
  ctx: KubeletContext;
  runner: JobsRunner;
  log: Logger;
}): Promise<AttachedKubelets> {
  const { log } = input;
  const fleet = new Map<string, Attached>();
  const watch = sharedPodWatch(kubeJson(input.base), log);
  try {
    // Before any Node is registered: a kubeconfig that may not read pods leaves none behind.
    await watch.synced;
  } catch (error) {
    watch.stop();
    throw podsUnreadable(error);
  }

  const attach = async (name: string, index: number): Promise<void> => {
    const client = kubeJson(kubeConfigAs(input.base, nodeIdentity(name)));
    const node = await register(client, name, input.labels, input.maxPods);
    const api = httpKubeletApi(client, node, log);
    // Watch events update the view from the start; they reach the kubelet once it runs.
    const running: { kubelet?: Kubelet } = {};
    const pods = watch.subscribe(name, (type, pod) => {
      for (const change of api.observe(type, pod)) {
        running.kubelet?.syncPod(change.pod, change.deleted);
      }
    });
    // From the shared cache (synced above): no request of the node's own.
    for (const pod of await pods.listed) api.observe('ADDED', pod);
    const kubelet = createKubelet(input.ctx, api, node, {
      index,
      version: input.version,
      runner: input.runner,
    });
    running.kubelet = kubelet;
    fleet.set(name, { client, api, pods, kubelet });
  };

  const stop = (): void => {
    for (const { kubelet, pods, api } of fleet.values()) {
      kubelet.stop();
      pods.stop();
      api.stop();
    }
    fleet.clear();
    watch.stop();
  };

  const started = await Promise.allSettled(input.names.map((name, i) => attach(name, i)));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    stop();
    throw failed.reason;
  }
  return {
    get: (node) => fleet.get(node)?.kubelet,
    names: () => [...fleet.keys()],
    clientFor: (node) => fleet.get(node)?.client,
    flushed: async () => void (await Promise.all([...fleet.values()].map((a) => a.api.flushed()))),
    stop,
  };
}
