/**
 * Builders for the objects scenarios seed: namespaces, nodes (labels, reboot-required marks, a
 * kubelet version), Deployments with their PDBs, DaemonSets. Plain objects for `store.create`.
 */
import { GRACE_MARKS, REBOOT_MARKS, SCENARIO_KUBELET_SHUTDOWN } from './marks.js';
import type { KObject } from '../types.js';

/** The label the scenarios put their node pools in. */
export const POOL_LABEL = 'kubemaint.io/pool';

export const SYSTEM_NAMESPACES = [
  'default',
  'kube-system',
  'kube-public',
  'kube-node-lease',
  'kubemaint',
];

export const namespace = (name: string): KObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name },
});

export interface NodeInput {
  name: string;
  pool: string;
  zone: string;
  kubeletVersion: string;
  /** Marks the node as the reporter agent would when it needs a reboot. */
  rebootRequired?: { since: Date; packages: string[] };
}

export function node(input: NodeInput): KObject {
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': input.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'node.kubernetes.io/instance-type': 'm6i.2xlarge',
    'topology.kubernetes.io/zone': input.zone,
    [POOL_LABEL]: input.pool,
  };
  const annotations: Record<string, string> = {
    [GRACE_MARKS.period]: SCENARIO_KUBELET_SHUTDOWN.shutdownGracePeriod,
    [GRACE_MARKS.critical]: SCENARIO_KUBELET_SHUTDOWN.shutdownGracePeriodCriticalPods,
    [GRACE_MARKS.source]: 'configz',
  };
  if (input.rebootRequired) {
    labels[REBOOT_MARKS.label] = 'true';
    annotations[REBOOT_MARKS.since] = input.rebootRequired.since.toISOString();
    annotations[REBOOT_MARKS.packages] = input.rebootRequired.packages.join(',');
  }
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: input.name, labels, annotations },
    spec: {},
    status: { nodeInfo: { kubeletVersion: input.kubeletVersion } },
  };
}

export interface WorkloadInput {
  namespace: string;
  name: string;
  replicas: number;
  image?: string;
  /** An emptyDir volume: drain needs --delete-emptydir-data for these pods. */
  emptyDir?: boolean;
  gracePeriodSeconds?: number;
}

export function podTemplate(input: WorkloadInput): Record<string, unknown> {
  return {
    metadata: { labels: { app: input.name } },
    spec: {
      terminationGracePeriodSeconds: input.gracePeriodSeconds ?? 30,
      containers: [
        {
          name: input.name,
          image: input.image ?? `registry.example.com/${input.name}:1.0.0`,
          ...(input.emptyDir ? { volumeMounts: [{ name: 'scratch', mountPath: '/data' }] } : {}),
        },
      ],
      ...(input.emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
    },
  };
}

export function deployment(input: WorkloadInput): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: input.name, namespace: input.namespace, labels: { app: input.name } },
    spec: {
      replicas: input.replicas,
      selector: { matchLabels: { app: input.name } },
      template: podTemplate(input),
    },
  };
}

export function pdb(
  namespaceName: string,
  app: string,
  budget: { minAvailable: number | string } | { maxUnavailable: number | string },
): KObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: app, namespace: namespaceName },
    spec: { ...budget, selector: { matchLabels: { app } } },
  };
}

export function daemonSet(input: Omit<WorkloadInput, 'replicas'>): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: input.name, namespace: input.namespace, labels: { app: input.name } },
    spec: {
      selector: { matchLabels: { app: input.name } },
      template: podTemplate({ ...input, replicas: 0 }),
    },
  };
}

/** `v1.31.4` → `v1.30.9`: a kubelet one minor behind the apiserver. */
export function minorBehind(version: string): string {
  const match = /^v(\d+)\.(\d+)\./.exec(version);
  if (!match) return version;
  return `v${match[1] ?? '1'}.${Number(match[2]) - 1}.9`;
}
