/**
 * `demo`: six nodes (or `nodes`) in two pools, node-2 and node-5 marked as needing a reboot (label
 * and the agent's annotations), node-4's kubelet a minor behind the apiserver (each when the cluster
 * has that many nodes); a shop with PDB-guarded Deployments, a
 * cache whose pod has emptyDir data, and a node agent DaemonSet. The controllers make the pods.
 */
import type { Store } from '../types.js';
import { R } from '../types.js';
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

const ACTOR = { actor: 'scenario/demo' };
const HOUR = 3_600_000;

export function seedDemo(store: Store, options: ScenarioOptions): void {
  const now = options.now.getTime();
  for (const name of [...SYSTEM_NAMESPACES, 'shop', 'data'])
    store.create(R.namespaces, namespace(name), ACTOR);
  const zones = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];
  const count = options.nodes ?? SCENARIO_NODES.demo;
  // Two thirds general, the rest batch: 4 and 2 of the six, as the walkthrough shows them.
  const general = Math.ceil((count * 2) / 3);
  for (let i = 1; i <= count; i++) {
    const reboot =
      i === 2
        ? { since: new Date(now - 50 * HOUR), packages: ['linux-image-6.8.0-1016-aws', 'libc6'] }
        : i === 5
          ? { since: new Date(now - 5 * HOUR), packages: ['openssl'] }
          : undefined;
    store.create(
      R.nodes,
      node({
        name: `node-${i}`,
        pool: i <= general ? 'general' : 'batch',
        zone: zones[(i - 1) % zones.length] ?? 'eu-west-1a',
        kubeletVersion: i === 4 ? minorBehind(options.version) : options.version,
        ...(reboot ? { rebootRequired: reboot } : {}),
      }),
      ACTOR,
    );
  }
  store.create(R.deployments, deployment({ namespace: 'shop', name: 'web', replicas: 3 }), ACTOR);
  store.create(R.pdbs, pdb('shop', 'web', { minAvailable: 2 }), ACTOR);
  store.create(R.deployments, deployment({ namespace: 'shop', name: 'api', replicas: 2 }), ACTOR);
  store.create(R.pdbs, pdb('shop', 'api', { maxUnavailable: 1 }), ACTOR);
  store.create(
    R.deployments,
    deployment({ namespace: 'data', name: 'cache', replicas: 1, emptyDir: true }),
    ACTOR,
  );
  store.create(
    R.daemonsets,
    daemonSet({ namespace: 'kube-system', name: 'node-agent', gracePeriodSeconds: 5 }),
    ACTOR,
  );
}
