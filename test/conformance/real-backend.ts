/**
 * The real apiserver as a conformance backend: the control plane `npm run test:real` started (or the
 * developer's, see test/support/real-cluster.ts), with kube-controller-manager and kube-scheduler but
 * no kubelets: cases that need one act as the kubelet themselves (kubelet.ts).
 */
import { realCluster } from '../support/real-cluster.js';
import { createBackend, eventually, type Backend } from './backend.js';

export async function startRealBackend(): Promise<Backend> {
  const cluster = await realCluster();
  return createBackend({
    name: 'real',
    kc: cluster.admin,
    identities: cluster,
    // The ServiceAccount admission plugin refuses pods until the namespace's `default` account exists.
    namespaceReady: async (backend, namespace) => {
      await eventually(`serviceaccount ${namespace}/default`, () =>
        backend.core.readNamespacedServiceAccount({ namespace, name: 'default' }),
      );
    },
    close: async () => undefined,
  });
}
