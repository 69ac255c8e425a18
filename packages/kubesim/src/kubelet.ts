/**
 * The simulated kubelets, one per Node: heartbeats (the kube-node-lease Lease and the Ready condition's
 * lastHeartbeatTime), `status.nodeInfo`, and the node's pods (kubelet-pods.ts). A REBOOT posts
 * Ready=False ("node is shutting down"), kills every container and stops heartbeating for
 * `rebootDowntimeMs`; the node comes back with a new bootID. With graceful node shutdown configured
 * (`setShutdown`) every pod the shutdown killed is Failed and its owner replaces it; without, the
 * new boot restarts the pods in place (restartCount+1, `restartPolicy: Never` pods end Failed).
 * A kubelet UPGRADE stops the kubelet for `upgradeDowntimeMs` and comes back with the new
 * kubeletVersion, restarting every container. Everything it reads or writes goes through a
 * `KubeletApi`, so the same kubelet runs on the embedded store or, attached, as `system:node:<name>`
 * on a real apiserver.
 */
import type { KObject } from './types.js';
import type { Stop } from './controllers/context.js';
import { isPodTerminal, setCondition, type PodStatus } from './controllers/shapes.js';
import type { JobsRunner } from './jobs-runner.js';
import type { KubeletApi, KubeletContext } from './kubelet-api.js';
import {
  applyNodeStatus,
  initialNodeInfo,
  newBootId,
  type NodeInfo,
} from './kubelet-node-status.js';
import { microTime, rebootedEvent } from './kubelet-objects.js';
import { legacyEvent } from './events.js';
import { markShutdown } from './kubelet-pod-status.js';
import {
  checkGracefulShutdown,
  gracefulShutdownOn,
  NO_GRACEFUL_SHUTDOWN,
  type GracefulShutdownConfig,
} from './kubelet-configz.js';
import { createNodePods, type NodePods } from './kubelet-pods.js';

export interface Kubelet {
  readonly name: string;
  info(): NodeInfo;
  isUp(): boolean;
  /** The machine goes down now and boots again after `rebootDowntimeMs`. */
  reboot(): void;
  /** The kubelet config's graceful shutdown settings (the kubelet's default: off). */
  shutdown(): GracefulShutdownConfig;
  setShutdown(config: GracefulShutdownConfig): void;
  /** The kubelet restarts as `version` after `upgradeDowntimeMs`. */
  upgrade(version: string): void;
  /** The kubelet process dies (containers keep running): heartbeats stop until `startKubelet`. */
  stopKubelet(): void;
  startKubelet(): void;
  syncPod(pod: KObject, deleted: boolean): void;
  stop(): void;
}

export function createKubelet(
  ctx: KubeletContext,
  api: KubeletApi,
  node: KObject,
  options: {
    index: number;
    version: string;
    runner: JobsRunner;
    /** The node's pods at start, when the caller has them (saves a scan per node in a big fleet). */
    initialPods?: readonly KObject[];
  },
): Kubelet {
  const { clock, delays } = ctx;
  const name = node.metadata.name ?? '';
  const info = initialNodeInfo(node, options.version);
  const hostIP = `10.0.${Math.floor(options.index / 250)}.${(options.index % 250) + 2}`;
  let podCounter = 0;
  let up = false;
  let stopHeartbeat: Stop | undefined;
  const pods: NodePods = createNodePods(
    ctx,
    api,
    {
      name,
      hostIP: () => hostIP,
      nextPodIP: () =>
        `10.${64 + (options.index >> 8)}.${options.index & 255}.${(podCounter++ % 250) + 2}`,
    },
    options.runner,
  );
  let initial = options.initialPods;
  let shutdown = NO_GRACEFUL_SHUTDOWN;

  const postStatus = (ready: boolean, message?: string): void => {
    const nowIso = clock.now().toISOString();
    api.writeNodeStatus((n) =>
      applyNodeStatus(n, { info, ip: hostIP, ready, nowIso, ...(message ? { message } : {}) }),
    );
  };

  const heartbeat = (): void => {
    if (!up || !api.node()) return;
    api.renewLease(microTime(clock.now()));
    postStatus(true);
    api.resyncPods?.();
  };

  /** What a real kubelet records when it finds a new boot id: a Warning `Rebooted` Event on the Node. */
  const recordRebooted = (): void => {
    const nodeUid = api.node()?.metadata.uid ?? '';
    api.recordEvent(rebootedEvent({ node: name, nodeUid, bootID: info.bootID, now: clock.now() }));
  };

  /** Node events of the kubelet's own (`Starting`, `NodeReady`, `NodeNotReady`). */
  const recordNode = (reason: string, message: string): void => {
    const current = api.node();
    if (!current) return;
    api.recordEvent(
      legacyEvent(
        { regarding: current, reason, message, component: 'kubelet', host: name },
        clock.now(),
      ),
    );
  };
  const recordStarted = (): void => {
    recordNode('Starting', 'Starting kubelet.');
    recordNode('NodeReady', `Node ${name} status is now: NodeReady`);
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
    const current = initial ?? api.pods();
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
      recordStarted();
    });
  };

  const kubelet: Kubelet = {
    name,
    info: () => ({ ...info }),
    isUp: () => up,
    reboot() {
      if (up) {
        postStatus(false, 'node is shutting down');
        recordNode('NodeNotReady', `Node ${name} status is now: NodeNotReady`);
      }
      const nowIso = clock.now().toISOString();
      const graceful = gracefulShutdownOn(shutdown);
      for (const pod of api.pods()) {
        if (isPodTerminal(pod) || pod.metadata.deletionTimestamp) continue;
        api.writePodStatus(pod, (p) => {
          // Upstream pkg/kubelet/nodeshutdown/nodeshutdown_manager.go `(*podManager).killPods`
          // (run by nodeshutdown_manager_linux.go `processShutdownEvent`) kills every active pod,
          // whatever its restartPolicy, and sets phase Failed, reason Terminated, the shutdown
          // message and a DisruptionTarget condition; critical pods only get their own grace period
          // (shutdownGracePeriodCriticalPods), the same status. Without the manager nobody marks the
          // pod: it only loses readiness, and the new boot restarts it (kubelet-pods.ts `restartLost`).
          if (graceful) return markShutdown(p, nowIso);
          const status: PodStatus = (p.status ??= {});
          for (const type of ['Ready', 'ContainersReady']) {
            setCondition(status, { type, status: 'False', reason: 'ContainersNotReady' }, nowIso);
          }
        });
      }
      cycle(delays.rebootDowntimeMs, () => {
        info.bootID = newBootId();
        recordRebooted();
      });
    },
    shutdown: () => ({ ...shutdown }),
    setShutdown(config) {
      shutdown = { ...checkGracefulShutdown(config) };
    },
    upgrade(version) {
      cycle(delays.upgradeDowntimeMs, () => (info.kubeletVersion = version));
    },
    stopKubelet: goDown,
    startKubelet() {
      if (up) return;
      comeUp(false);
      recordStarted();
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
