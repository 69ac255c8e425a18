/**
 * The apiserver's bootstrap controller's Service: `default/kubernetes`, the first address of the
 * service range on port 443, created when missing (at start and whenever it is deleted), as every
 * cluster has it. Its Endpoints are not kept (the real-cluster control plane runs without an
 * endpoint reconciler too): the sim's apiserver has no in-cluster address.
 */
import { R, type KObject } from '../types.js';
import type { ControllerContext, Stop } from './context.js';
import { KUBERNETES_SERVICE_IP } from '../service-hooks.js';

const ACTOR = 'apiserver/bootstrap';

export function kubernetesService(): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'kubernetes',
      namespace: 'default',
      labels: { component: 'apiserver', provider: 'kubernetes' },
    },
    spec: {
      clusterIP: KUBERNETES_SERVICE_IP,
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
      type: 'ClusterIP',
    },
  };
}

export function startKubernetesService(ctx: ControllerContext): Stop {
  const { store } = ctx;
  const ensure = (): void => {
    if (!store.get(R.namespaces, undefined, 'default')) return;
    if (store.get(R.services, 'default', 'kubernetes')) return;
    store.create(R.services, kubernetesService(), { actor: ACTOR });
  };
  const stops = [
    store.watch(R.namespaces, (e) => {
      if (e.object.metadata.name === 'default' && e.type === 'ADDED') ensure();
    }),
    store.watch(R.services, (e) => {
      if (e.type === 'DELETED' && keyIs(e.object)) ctx.clock.after(0, ensure);
    }),
  ];
  ensure();
  return () => {
    for (const stop of stops) stop();
  };
}

const keyIs = (o: KObject) =>
  o.metadata.namespace === 'default' && o.metadata.name === 'kubernetes';
