/**
 * `fleet`: N nodes (default 50) in three pools with `podsPerNode` pods each (up to 110: the node
 * agent DaemonSet pod plus Deployment pods in PDB-guarded groups of ten), seeded already running and
 * Ready so a big fleet is there at once (5,000 nodes and 100,000 pods for the benchmark). Every
 * seventh node needs a reboot; the `batch` pool's kubelets are a minor behind.
 */
import { templateHash } from '../controllers/pod-template.js';
import { DAEMON_TOLERATIONS } from '../controllers/daemonset.js';
import { markReady, markStarted } from '../kubelet-pod-status.js';
import { applyNodeStatus, initialNodeInfo } from '../kubelet-node-status.js';
import { R, type KObject, type Store } from '../types.js';
import {
  daemonSet,
  deployment,
  minorBehind,
  namespace,
  node,
  pdb,
  SYSTEM_NAMESPACES,
} from './builders.js';
import type { ScenarioOptions } from './types.js';
import { SCENARIO_NODES } from '../names.js';

const ACTOR = { actor: 'scenario/fleet' };
const POOLS = ['general', 'compute', 'batch'] as const;
const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];
const TEAMS = 5;
const GROUP = 10;
export const MAX_PODS_PER_NODE = 110;

const owner = (o: KObject) => ({
  apiVersion: o.apiVersion ?? '',
  kind: o.kind ?? '',
  name: o.metadata.name ?? '',
  uid: o.metadata.uid ?? '',
  controller: true,
  blockOwnerDeletion: true,
});

export function seedFleet(store: Store, options: ScenarioOptions): void {
  const nodes = options.nodes ?? SCENARIO_NODES.fleet;
  const perNode = options.podsPerNode ?? 20;
  if (!Number.isInteger(nodes) || nodes < 1) {
    throw new RangeError(`fleet needs a whole number of nodes >= 1, got ${nodes}`);
  }
  if (!Number.isInteger(perNode) || perNode < 1 || perNode > MAX_PODS_PER_NODE) {
    throw new RangeError(
      `pods per node must be 1..${MAX_PODS_PER_NODE} (the kubelet's max-pods), got ${perNode}`,
    );
  }
  const nowIso = options.now.toISOString();
  const now = options.now.getTime();
  const teams = Array.from({ length: TEAMS }, (_, i) => `team-${i + 1}`);
  for (const name of [...SYSTEM_NAMESPACES, ...teams])
    store.create(R.namespaces, namespace(name), ACTOR);

  const nodeNames: string[] = [];
  const hostIPs: string[] = [];
  for (let i = 0; i < nodes; i++) {
    const pool = POOLS[i % POOLS.length] ?? 'general';
    const name = `fleet-${pool}-${String(i + 1).padStart(4, '0')}`;
    const version = pool === 'batch' ? minorBehind(options.version) : options.version;
    const object = node({
      name,
      pool,
      zone: ZONES[i % ZONES.length] ?? 'eu-west-1a',
      kubeletVersion: version,
      ...(i % 7 === 3
        ? {
            rebootRequired: {
              since: new Date(now - (i % 48) * 3_600_000),
              packages: ['linux-image-6.8.0-1016-aws'],
            },
          }
        : {}),
    });
    const ip = `10.0.${Math.floor(i / 250)}.${(i % 250) + 2}`;
    applyNodeStatus(object, { info: initialNodeInfo(object, version), ip, ready: true, nowIso });
    store.create(R.nodes, object, ACTOR);
    nodeNames.push(name);
    hostIPs.push(ip);
  }

  let podIndex = 0;
  const seedPod = (pod: KObject, nodeIndex: number): void => {
    pod.spec = { ...pod.spec, nodeName: nodeNames[nodeIndex] };
    const n = podIndex++;
    markStarted(pod, {
      nowIso,
      hostIP: hostIPs[nodeIndex] ?? '',
      podIP: `10.${64 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`,
    });
    markReady(pod, nowIso);
    store.create(R.pods, pod, ACTOR);
  };
  const fromTemplate = (o: KObject, name: string, extra: Record<string, string> = {}): KObject => {
    const template = (o.spec?.['template'] ?? {}) as {
      metadata?: { labels?: Record<string, string> };
      spec?: Record<string, unknown>;
    };
    return {
      metadata: {
        name,
        namespace: o.metadata.namespace,
        labels: { ...template.metadata?.labels, ...extra },
        ownerReferences: [owner(o)],
      },
      spec: structuredClone(template.spec ?? {}),
    };
  };

  const agent = store.create(
    R.daemonsets,
    daemonSet({ namespace: 'kube-system', name: 'node-agent', gracePeriodSeconds: 5 }),
    ACTOR,
  );
  nodeNames.forEach((name, i) => {
    const pod = fromTemplate(agent, `node-agent-${name.slice(-4)}-${i}`);
    pod.spec = {
      ...pod.spec,
      tolerations: DAEMON_TOLERATIONS.map((t) => ({ ...t })),
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: [name] }] },
            ],
          },
        },
      },
    };
    seedPod(pod, i);
  });

  const appPods = nodes * (perNode - 1);
  let placed = 0;
  for (let d = 0; placed < appPods; d++) {
    const replicas = Math.min(GROUP, appPods - placed);
    const ns = teams[d % TEAMS] ?? 'team-1';
    const app = `app-${d + 1}`;
    const deploy = store.create(
      R.deployments,
      deployment({ namespace: ns, name: app, replicas }),
      ACTOR,
    );
    store.create(R.pdbs, pdb(ns, app, { maxUnavailable: 1 }), ACTOR);
    const template = (deploy.spec?.['template'] ?? {}) as {
      metadata?: { labels?: Record<string, string> };
    };
    const hash = templateHash(template);
    const labels = { ...template.metadata?.labels, 'pod-template-hash': hash };
    const rs = store.create(
      R.replicasets,
      {
        metadata: {
          name: `${app}-${hash}`,
          namespace: ns,
          labels,
          annotations: { 'deployment.kubernetes.io/revision': '1' },
          ownerReferences: [owner(deploy)],
        },
        spec: {
          replicas,
          selector: { matchLabels: { app, 'pod-template-hash': hash } },
          template: { ...template, metadata: { labels } },
        },
        status: {
          replicas,
          readyReplicas: replicas,
          availableReplicas: replicas,
          fullyLabeledReplicas: replicas,
          observedGeneration: 1,
        },
      },
      ACTOR,
    );
    for (let r = 0; r < replicas; r++) {
      seedPod(fromTemplate(rs, `${app}-${hash}-${r}`), (placed + r) % nodes);
    }
    placed += replicas;
  }
}
