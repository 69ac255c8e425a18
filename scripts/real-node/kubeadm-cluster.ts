/**
 * What `kubeadm init` leaves in a cluster that `kubeadm upgrade node` on a worker reads: the
 * kube-system ConfigMaps `kubeadm-config` (the ClusterConfiguration) and `kubelet-config` (the kubelet
 * configuration every node shares: guest.ts's), and the Roles that let `system:nodes` read them. The
 * real control plane is not made by kubeadm, so the test creates them (ADR 0045, 0047); the Node's
 * `kubeadm.alpha.kubernetes.io/cri-socket` annotation, which `kubeadm join` 1.33 sets, is
 * KUBEADM_CRI_SOCKET_ANNOTATION. Nothing here is a stand-in: the real kubeadm reads it.
 */
import type { KubernetesVersion } from '../real-cluster/versions.js';
import { SHARED_KUBELET_CONFIG } from './guest.js';

/** kubeadm 1.33's record of a node's runtime socket; 1.34 moves it to the node (instance-config.yaml). */
export const KUBEADM_CRI_SOCKET_ANNOTATION = 'kubeadm.alpha.kubernetes.io/cri-socket';

const CLUSTER_CONFIGURATION = (version: KubernetesVersion) => `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
clusterName: kubemaint-real
kubernetesVersion: v${version.full}
controlPlaneEndpoint: kubernetes:6443
certificatesDir: /etc/kubernetes/pki
networking:
  dnsDomain: cluster.local
  serviceSubnet: 10.0.0.0/24
  podSubnet: 10.244.0.0/16
`;

/** A kube-system Role reading one ConfigMap, bound to every node (kubeadm init's own pair). */
function nodesRead(name: string, configMap: string): object[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, namespace: 'kube-system' },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], resourceNames: [configMap], verbs: ['get'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
    },
  ];
}

/** The objects as one `kubectl apply -f -` List. */
export function kubeadmClusterObjects(controlPlane: KubernetesVersion): object {
  const configMap = (name: string, data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'kube-system' },
    data,
  });
  return {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      configMap('kubeadm-config', { ClusterConfiguration: CLUSTER_CONFIGURATION(controlPlane) }),
      configMap('kubelet-config', { kubelet: SHARED_KUBELET_CONFIG }),
      ...nodesRead('kubeadm:nodes-kubeadm-config', 'kubeadm-config'),
      ...nodesRead('kubeadm:kubelet-config', 'kubelet-config'),
    ],
  };
}
