/**
 * The fleet of kubelets: one per Node object (a node created later, through the API or a scenario,
 * gets its kubelet at once; a deleted node loses it), except nodes whose kubelet is attached from
 * outside (ATTACHED_KUBELET_ANNOTATION). Pod watch events go to the kubelet of the pod's
 * node; the host endpoint reaches a node's kubelet through `get`.
 */
import { R, type KObject } from './types.js';
import type { ControllerContext } from './controllers/context.js';
import { podSpec } from './controllers/shapes.js';
import type { JobsRunner } from './jobs-runner.js';
import { createKubelet, type Kubelet } from './kubelet.js';
import { ATTACHED_KUBELET_ANNOTATION } from './kubelet-objects.js';
import { storeKubeletApi } from './kubelet-store-api.js';

export interface Kubelets {
  get(node: string): Kubelet | undefined;
  names(): string[];
  stop(): void;
}

export function startKubelets(
  ctx: ControllerContext,
  options: { version: string; runner: JobsRunner },
): Kubelets {
  const { store } = ctx;
  const kubelets = new Map<string, Kubelet>();
  let index = 0;
  const add = (name: string, initialPods?: readonly KObject[]): void => {
    if (kubelets.has(name)) return;
    const node = store.get(R.nodes, undefined, name);
    if (!node || node.metadata.annotations?.[ATTACHED_KUBELET_ANNOTATION]) return;
    const extra = initialPods ? { initialPods } : {};
    const api = storeKubeletApi(store, name);
    kubelets.set(name, createKubelet(ctx, api, node, { index: index++, ...options, ...extra }));
  };
  const stops = [
    store.watchFrom(
      R.nodes,
      undefined,
      (event) => {
        const name = event.object.metadata.name ?? '';
        if (event.type === 'ADDED') add(name);
        if (event.type === 'DELETED') {
          kubelets.get(name)?.stop();
          kubelets.delete(name);
        }
      },
      { shared: true },
    ),
    store.watchFrom(
      R.pods,
      undefined,
      (event) => {
        const node = podSpec(event.object).nodeName;
        if (node) kubelets.get(node)?.syncPod(event.object, event.type === 'DELETED');
      },
      { shared: true },
    ),
  ];
  // One pass over the pods instead of a field-selector scan per node: 5,000 nodes start in seconds.
  const byNode = new Map<string, KObject[]>();
  for (const pod of store.listPage(R.pods, {}, { shared: true }).items) {
    const node = podSpec(pod).nodeName;
    if (!node) continue;
    const list = byNode.get(node);
    if (list) list.push(pod);
    else byNode.set(node, [pod]);
  }
  for (const node of store.listPage(R.nodes, {}, { shared: true }).items) {
    const name = node.metadata.name ?? '';
    add(name, byNode.get(name) ?? []);
  }
  return {
    get: (node) => kubelets.get(node),
    names: () => [...kubelets.keys()],
    stop() {
      for (const stop of stops) stop();
      for (const kubelet of kubelets.values()) kubelet.stop();
      kubelets.clear();
    },
  };
}
