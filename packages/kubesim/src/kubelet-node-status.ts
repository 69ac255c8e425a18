/**
 * What a kubelet reports about its node, pure: `status.nodeInfo` (bootID, kubeletVersion, osImage,
 * kernelVersion, containerRuntimeVersion…), capacity (110 pods), addresses and the conditions, as a
 * healthy kubelet posts them, or Ready=False while the node shuts down.
 */
import { randomUUID } from 'node:crypto';
import type { KObject } from './types.js';
import { flat } from './store-meta.js';
import { setCondition, type Condition } from './controllers/shapes.js';

export interface NodeInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

export const newBootId = (): string => flat(randomUUID());

/**
 * The node's own nodeInfo if a scenario set one, filled up with defaults for what it left out. Empty
 * strings count as left out: a Node just registered through a real apiserver reads back every
 * nodeInfo field as "" until its kubelet posts them.
 */
export function initialNodeInfo(node: KObject, defaultVersion: string): NodeInfo {
  const raw = ((node.status ?? {})['nodeInfo'] ?? {}) as Record<string, unknown>;
  const given = Object.fromEntries(
    Object.entries(raw).filter(([, value]) => value !== ''),
  ) as Partial<NodeInfo>;
  const machine = flat(randomUUID().replaceAll('-', ''));
  return {
    machineID: machine,
    systemUUID: flat(randomUUID()),
    bootID: newBootId(),
    kernelVersion: '6.8.0-1015-aws',
    osImage: 'Ubuntu 24.04.1 LTS',
    containerRuntimeVersion: 'containerd://1.7.22',
    kubeletVersion: defaultVersion,
    kubeProxyVersion: '',
    operatingSystem: 'linux',
    architecture: 'amd64',
    ...given,
  };
}

const HEALTHY: readonly Omit<Condition, 'lastTransitionTime'>[] = [
  {
    type: 'MemoryPressure',
    status: 'False',
    reason: 'KubeletHasSufficientMemory',
    message: 'kubelet has sufficient memory available',
  },
  {
    type: 'DiskPressure',
    status: 'False',
    reason: 'KubeletHasNoDiskPressure',
    message: 'kubelet has no disk pressure',
  },
  {
    type: 'PIDPressure',
    status: 'False',
    reason: 'KubeletHasSufficientPID',
    message: 'kubelet has sufficient PID available',
  },
];

/**
 * The condition types the kubelet writes on its Node, and only these: another writer's (Node Problem
 * Detector, an admin tool's KEP-5683 conditions) are never in its patches.
 */
export const KUBELET_NODE_CONDITIONS: ReadonlySet<string> = new Set([
  ...HEALTHY.map((c) => c.type),
  'Ready',
]);

/** Apply the kubelet's view to a Node object in place (what it PATCHes to nodes/status). */
export function applyNodeStatus(
  node: KObject,
  report: { info: NodeInfo; ip: string; ready: boolean; message?: string; nowIso: string },
): void {
  const status = (node.status ??= {}) as Record<string, unknown> & { conditions?: Condition[] };
  const capacity = {
    cpu: '8',
    memory: '32856800Ki',
    pods: '110',
    'ephemeral-storage': '101430960Ki',
  };
  const given = (status['capacity'] ?? {}) as Record<string, string>;
  status['capacity'] = { ...capacity, ...given };
  status['allocatable'] = { ...capacity, ...given, ...(status['allocatable'] ?? {}) };
  status['nodeInfo'] = { ...report.info };
  status['addresses'] = [
    { type: 'InternalIP', address: report.ip },
    { type: 'Hostname', address: node.metadata.name ?? '' },
  ];
  // Where the kubelet listens: 10250 unless the sim serves this kubelet's /configz elsewhere.
  status['daemonEndpoints'] ??= { kubeletEndpoint: { Port: 10250 } };
  for (const condition of HEALTHY) {
    setCondition(status, { ...condition, lastHeartbeatTime: report.nowIso }, report.nowIso);
  }
  setCondition(
    status,
    report.ready
      ? {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastHeartbeatTime: report.nowIso,
        }
      : {
          type: 'Ready',
          status: 'False',
          reason: 'KubeletNotReady',
          message: report.message ?? 'kubelet is not ready',
          lastHeartbeatTime: report.nowIso,
        },
    report.nowIso,
  );
}
