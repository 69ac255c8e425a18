/**
 * The objects a kubelet creates besides status, pure: its Lease in `kube-node-lease` (the heartbeat
 * the node lifecycle controller reads), the Warning `Rebooted` Event it records when it finds a new
 * boot id, and the Node an attached kubelet registers. The embedded and attached kubelets share them.
 */
import type { KObject } from './types.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/**
 * On a Node whose kubelet is attached from outside (`kubemaint sim --attach`): the embedded sim then
 * runs no kubelet of its own for it, as kwok manages only the nodes its annotation selector picks.
 */
export const ATTACHED_KUBELET_ANNOTATION = 'sim.kubemaint.io/kubelet';

/** How long a node's Lease vouches for it (the kubelet's `nodeLeaseDurationSeconds`). */
export const NODE_LEASE_SECONDS = 40;

/** MicroTime: the apiserver wants exactly six fractional digits. */
export const microTime = (date: Date): string => date.toISOString().replace(/Z$/, '000Z');

/** The Lease a node renews; owned by its Node (when its uid is known) so it goes with it. */
export function nodeLease(name: string, renewTime: string, nodeUid?: string): KObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: NODE_LEASE_NAMESPACE,
      ...(nodeUid
        ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: nodeUid }] }
        : {}),
    },
    spec: { holderIdentity: name, leaseDurationSeconds: NODE_LEASE_SECONDS, renewTime },
  };
}

/** What a real kubelet records when it finds a new boot id (Events of a Node live in `default`). */
export function rebootedEvent(input: {
  node: string;
  nodeUid: string;
  bootID: string;
  now: Date;
}): KObject {
  const at = input.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { generateName: `${input.node}.`, namespace: 'default' },
    involvedObject: { apiVersion: 'v1', kind: 'Node', name: input.node, uid: input.nodeUid },
    reason: 'Rebooted',
    message: `Node ${input.node} has been rebooted, boot id: ${input.bootID}`,
    type: 'Warning',
    source: { component: 'kubelet', host: input.node },
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
}

/**
 * The Node an attached kubelet registers: the well-known labels a kubelet sets on itself, the caller's
 * (NodeRestriction lets a node set only some `kubernetes.io/` labels, e.g. `topology.kubernetes.io/zone`),
 * and the annotation that keeps the embedded sim's own kubelets off it. Its status follows with the
 * first heartbeat.
 */
export function registeredNode(
  name: string,
  labels: Record<string, string> = {},
  maxPods?: number,
): KObject {
  // A kubelet started with --max-pods registers that capacity; node status keeps what it finds.
  const pods = maxPods === undefined ? undefined : { pods: String(maxPods) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        ...labels,
      },
      annotations: { [ATTACHED_KUBELET_ANNOTATION]: 'attached' },
    },
    spec: {},
    ...(pods ? { status: { capacity: pods, allocatable: pods } } : {}),
  };
}
