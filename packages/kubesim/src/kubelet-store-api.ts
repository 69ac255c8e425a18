/**
 * The embedded kubelets' side of `KubeletApi`: straight onto the in-process store, synchronously,
 * every write audited as `kubelet/<node>`.
 */
import type { KubeletApi } from './kubelet-api.js';
import { NODE_LEASE_NAMESPACE, nodeLease } from './kubelet-objects.js';
import { R, type Store } from './types.js';
import { createEventSink } from './events.js';

export function storeKubeletApi(store: Store, name: string): KubeletApi {
  const actor = `kubelet/${name}`;
  const recordEvent = createEventSink(store, actor);
  return {
    node: () => store.get(R.nodes, undefined, name),
    pods: () => store.list(R.pods, { fieldSelector: `spec.nodeName=${name}` }),
    pod: (namespace, pod) => store.get(R.pods, namespace, pod),
    writeNodeStatus(mutate) {
      store.mutate(R.nodes, undefined, name, mutate, { actor, subresource: 'status' });
    },
    renewLease(renewTime) {
      const updated = store.mutate(
        R.leases,
        NODE_LEASE_NAMESPACE,
        name,
        (lease) => {
          (lease.spec ??= {})['renewTime'] = renewTime;
        },
        { actor },
      );
      if (updated || !store.get(R.namespaces, undefined, NODE_LEASE_NAMESPACE)) return;
      const owner = store.get(R.nodes, undefined, name);
      store.create(R.leases, nodeLease(name, renewTime, owner?.metadata.uid), { actor });
    },
    writePodStatus(pod, mutate) {
      const { namespace, name: podName = '', uid } = pod.metadata;
      const current = store.get(R.pods, namespace, podName);
      if (!current || current.metadata.uid !== uid) return undefined;
      return store.mutate(R.pods, namespace, podName, mutate, { actor, subresource: 'status' });
    },
    deletePod(pod) {
      try {
        store.delete(R.pods, pod.metadata.namespace, pod.metadata.name ?? '', {
          actor,
          gracePeriodSeconds: 0,
          preconditions: { uid: pod.metadata.uid ?? '' },
        });
      } catch {
        // Already gone, or a new pod took the name: nothing of ours left to remove.
      }
    },
    recordEvent,
  };
}
