/**
 * The simulated kubelets, one per Node: heartbeats (the kube-node-lease Lease and the Ready condition's
 * lastHeartbeatTime), `status.nodeInfo`, and the node's pods (kubelet-pods.ts). A REBOOT posts
 * Ready=False ("node is shutting down"), kills every container and stops heartbeating for
 * `rebootDowntimeMs`; the node comes back with a new bootID and restarts its pods (restartCount+1,
 * pods that may not restart end Failed). A kubelet UPGRADE stops the kubelet for `upgradeDowntimeMs`
 * and comes back with the new kubeletVersion, restarting every container.
 */
import { R, type KObject } from './types.js';
import type { ControllerContext, Stop } from './controllers/context.js';
import { isPodTerminal, podSpec, setCondition, type PodStatus } from './controllers/shapes.js';
import type { JobsRunner } from './jobs-runner.js';
import {
  applyNodeStatus,
  initialNodeInfo,
  newBootId,
  type NodeInfo,
} from './kubelet-node-status.js';
import { markShutdown } from './kubelet-pod-status.js';
import { createNodePods, type NodePods } from './kubelet-pods.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** MicroTime: the apiserver wants exactly six fractional digits. */
export const microTime = (date: Date): string => date.toISOString().replace(/Z$/, '000Z');

export interface Kubelet {
  readonly name: string;
  info(): NodeInfo;
  isUp(): boolean;
  /** The machine goes down now and boots again after `rebootDowntimeMs`. */
  reboot(): void;
  /** The kubelet restarts as `version` after `upgradeDowntimeMs`. */
  upgrade(version: string): void;
  /** The kubelet process dies (containers keep running): heartbeats stop until `startKubelet`. */
  stopKubelet(): void;
  startKubelet(): void;
  syncPod(pod: KObject, deleted: boolean): void;
  stop(): void;
}

export function createKubelet(
  ctx: ControllerContext,
  node: KObject,
  options: {
    index: number;
    version: string;
    runner: JobsRunner;
    /** The node's pods at start, when the caller has them (saves a scan per node in a big fleet). */
    initialPods?: readonly KObject[];
  },
): Kubelet {
  const { store, clock, delays } = ctx;
  const name = node.metadata.name ?? '';
  const actor = `kubelet/${name}`;
  const info = initialNodeInfo(node, options.version);
  const hostIP = `10.0.${Math.floor(options.index / 250)}.${(options.index % 250) + 2}`;
  let podCounter = 0;
  let up = false;
  let stopHeartbeat: Stop | undefined;
  const pods: NodePods = createNodePods(
    ctx,
    {
      name,
      actor,
      hostIP: () => hostIP,
      nextPodIP: () =>
        `10.${64 + (options.index >> 8)}.${options.index & 255}.${(podCounter++ % 250) + 2}`,
    },
    options.runner,
  );
  let initial = options.initialPods;
  const podsHere = (): KObject[] => store.list(R.pods, { fieldSelector: `spec.nodeName=${name}` });

  const postStatus = (ready: boolean, message?: string): void => {
    const nowIso = clock.now().toISOString();
    store.mutate(
      R.nodes,
      undefined,
      name,
      (n) =>
        applyNodeStatus(n, { info, ip: hostIP, ready, nowIso, ...(message ? { message } : {}) }),
      { actor, subresource: 'status' },
    );
  };

  const renewLease = (): void => {
    const renewTime = microTime(clock.now());
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
    store.create(
      R.leases,
      {
        metadata: {
          name,
          namespace: NODE_LEASE_NAMESPACE,
          ...(owner
            ? {
                ownerReferences: [
                  { apiVersion: 'v1', kind: 'Node', name, uid: owner.metadata.uid ?? '' },
                ],
              }
            : {}),
        },
        spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
      },
      { actor },
    );
  };

  const heartbeat = (): void => {
    if (!up || !store.get(R.nodes, undefined, name)) return;
    renewLease();
    postStatus(true);
  };

  /** What a real kubelet records when it finds a new boot id: a Warning `Rebooted` Event on the Node. */
  const recordRebooted = (): void => {
    const nowIso = clock
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    const uid = store.get(R.nodes, undefined, name)?.metadata.uid ?? '';
    try {
      store.create(
        R.events,
        {
          metadata: { generateName: `${name}.`, namespace: 'default' },
          involvedObject: { apiVersion: 'v1', kind: 'Node', name, uid },
          reason: 'Rebooted',
          message: `Node ${name} has been rebooted, boot id: ${info.bootID}`,
          type: 'Warning',
          source: { component: 'kubelet', host: name },
          firstTimestamp: nowIso,
          lastTimestamp: nowIso,
          count: 1,
        },
        { actor },
      );
    } catch {
      // No default namespace (an odd scenario): the reboot still happens, only unrecorded.
    }
  };

  /** The pending boot after a reboot or upgrade, and the delayed start of the heartbeat loop. */
  let pendingUp: Stop | undefined;
  let heartbeatStart: Stop | undefined;

  const goDown = (): void => {
    up = false;
    heartbeatStart?.();
    stopHeartbeat?.();
    heartbeatStart = stopHeartbeat = undefined;
  };

  const comeUp = (restartContainers: boolean): void => {
    goDown();
    pendingUp = undefined;
    up = true;
    heartbeat();
    // Spread heartbeats so a fleet does not write all at once.
    heartbeatStart = clock.after(Math.random() * delays.heartbeatMs, () => {
      heartbeatStart = undefined;
      if (!up) return;
      heartbeat();
      stopHeartbeat = clock.every(delays.heartbeatMs, heartbeat);
    });
    const current = initial ?? podsHere();
    initial = undefined;
    if (restartContainers) pods.restartAll(current);
    else for (const pod of current) pods.sync(pod);
  };

  /** Down now, up again after `downMs` (a second call while down starts the wait over). */
  const cycle = (downMs: number, onBoot: () => void): void => {
    goDown();
    pods.killAll();
    pendingUp?.();
    pendingUp = clock.after(downMs, () => {
      onBoot();
      comeUp(true);
    });
  };

  const kubelet: Kubelet = {
    name,
    info: () => ({ ...info }),
    isUp: () => up,
    reboot() {
      if (up) postStatus(false, 'node is shutting down');
      const nowIso = clock.now().toISOString();
      // Graceful node shutdown: pods that may not restart fail; the rest lose readiness with their containers.
      for (const pod of podsHere()) {
        if (isPodTerminal(pod) || pod.metadata.deletionTimestamp) continue;
        store.mutate(
          R.pods,
          pod.metadata.namespace,
          pod.metadata.name ?? '',
          (p) => {
            if ((podSpec(p).restartPolicy ?? 'Always') === 'Never') return markShutdown(p, nowIso);
            const status: PodStatus = (p.status ??= {});
            for (const type of ['Ready', 'ContainersReady']) {
              setCondition(status, { type, status: 'False', reason: 'ContainersNotReady' }, nowIso);
            }
          },
          { actor, subresource: 'status' },
        );
      }
      cycle(delays.rebootDowntimeMs, () => {
        info.bootID = newBootId();
        recordRebooted();
      });
    },
    upgrade(version) {
      cycle(delays.upgradeDowntimeMs, () => (info.kubeletVersion = version));
    },
    stopKubelet: goDown,
    startKubelet() {
      if (!up) comeUp(false);
    },
    syncPod(pod, deleted) {
      if (deleted) return pods.forget(pod.metadata.uid ?? '');
      if (up) pods.sync(pod);
    },
    stop() {
      goDown();
      pendingUp?.();
      pods.killAll();
    },
  };
  comeUp(false);
  return kubelet;
}
