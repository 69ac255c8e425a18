/**
 * `attachSim`: the sim's kubelets, host model and jobs runner as API clients of any apiserver (kwok's
 * idea), where the real kube-controller-manager and kube-scheduler do the rest. N nodes register
 * themselves as `system:node:<name>`, heartbeat (Lease and status), run the pods bound to them (mapped
 * images as local processes with a token bound to the pod) and reboot or upgrade through the same host
 * endpoint as the embedded sim (`KUBEMAINT_SIM_HOST_URL`, `kubemaint-sim-host`).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { isApiError } from './api-errors.js';
import { once, withRetry } from './api-errors.js';
import { SimError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { startHostAdmin, type HostAdmin } from '../admin-host.js';
import { createScaledClock, type OwnedClock } from '../clock.js';
import { DEFAULT_DELAYS, type SimDelays } from '../controllers/context.js';
import { findCondition, type Condition } from '../controllers/shapes.js';
import { createHost, hostControls, type HostControls } from '../host.js';
import { hostRoots } from '../host-root.js';
import { createJobsRunner, type ImageMap } from '../jobs-runner.js';
import type { KObject } from '../types.js';
import { startAttachedKubelets, type AttachedKubelets } from './attached-kubelets.js';
import { kubeJson, type KubeJson } from './kube-json.js';
import { podLaunches } from './pod-launch.js';

import {
  checkGracefulShutdown,
  startKubeletConfigz,
  type GracefulShutdownConfig,
  type KubeletConfigzServer,
} from '../kubelet-configz.js';
export const DEFAULT_NODE_PREFIX = 'sim-node-';

export interface AttachOptions {
  /**
   * An admin kubeconfig: its identity must be allowed to impersonate users and groups, and to list
   * and watch pods in all namespaces (the fleet's one pod watch, shared-pod-watch.ts).
   */
  kubeconfig: string;
  nodes: number;
  /** Node names are `<prefix>0 … <prefix>N-1`. @default 'sim-node-' */
  prefix?: string;
  /**
   * Labels every node registers with, e.g. a `topology.kubernetes.io/zone` of its own: the node
   * lifecycle controller stops NoExecute tainting in a zone where most nodes are down. @default {}
   */
  labels?: Record<string, string>;
  /** Pods each node takes, as a kubelet's --max-pods (a 300-pod drain needs more). @default 110 */
  maxPods?: number;
  /** What the kubelets report. @default the apiserver's version */
  kubeletVersion?: string;
  /** Images that run as local commands (see jobs-runner.ts). @default {} */
  images?: ImageMap;
  /** The kubelets' own delays run this many times faster than wall time. @default 1 */
  scale?: number;
  /** Bring the clock of the sim attached to (tests attaching to an embedded sim in process). */
  clock?: OwnedClock;
  delays?: Partial<SimDelays>;
  /** A folder for the hosts' file systems, `<dir>/<node>/` each (see host-root.ts). @default none */
  hostsDir?: string;
  /** Host endpoint port on 127.0.0.1; 0 picks a free one. @default 0 */
  hostPort?: number;
  /**
   * Each kubelet serves `/configz` with this graceful-shutdown setting on a port of its own
   * (kubelet-configz.ts), checking callers with the apiserver's TokenReview and SubjectAccessReview
   * as its node. @default none: no /configz
   */
  gracefulShutdown?: GracefulShutdownConfig;
  /** Wall-clock wait for every node to be Ready. @default 60_000 */
  readyTimeoutMs?: number;
  log?: Logger;
}

export interface AttachedSim {
  nodes: readonly string[];
  server: string;
  kubeconfigPath: string;
  /** The host endpoint (`KUBEMAINT_SIM_HOST_URL` of the pods these kubelets run). */
  hostUrl: string;
  /** Each node's kubelet `/configz` server, with `gracefulShutdown`. */
  configz: Readonly<Record<string, KubeletConfigzServer>>;
  clock: OwnedClock;
  admin: HostControls & {
    /** Resolves once every write the kubelets asked for so far has been answered. */
    flushed(): Promise<void>;
  };
  /** Stop heartbeats and local processes; `cleanup` also deletes the nodes. */
  stop(options?: { cleanup?: boolean }): Promise<void>;
}

/** `/version` (public): the server answers, and says which kubelet version fits it. */
async function serverVersion(admin: KubeJson): Promise<string> {
  try {
    const version = await admin.request<{ gitVersion?: string }>('GET', '/version', {
      timeoutMs: 10_000,
    });
    return version.gitVersion ?? 'v0.0.0';
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new SimError('config_invalid', `cannot reach the API server at ${admin.server}: ${why}`, {
      cause: error,
    });
  }
}

const isReady = (node: KObject): boolean =>
  findCondition(node.status?.['conditions'] as Condition[] | undefined, 'Ready')?.status === 'True';

/** The node's Lease in kube-node-lease, read as the node. */
async function leaseExists(client: KubeJson, name: string): Promise<boolean> {
  try {
    // Translated (once), so a 404 is a not-found KubeError and not the raw ApiException.
    await once(`get lease ${name}`, () =>
      client.request<KObject>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(name)}`,
      ),
    );
    return true;
  } catch (error) {
    if (isApiError(error, 'not-found')) return false;
    throw error;
  }
}

/** Wait until the server shows every node Ready with the boot id its kubelet has, and its Lease (read as the node). */
async function waitReady(kubelets: AttachedKubelets, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const waiting = new Set(kubelets.names());
  while (waiting.size > 0) {
    for (const name of [...waiting]) {
      const client = kubelets.clientFor(name);
      if (!client) continue;
      const node = await withRetry(`get node ${name}`, () =>
        client.request<KObject>('GET', `/api/v1/nodes/${encodeURIComponent(name)}`),
      );
      const bootID = (node.status?.['nodeInfo'] as { bootID?: string } | undefined)?.bootID;
      if (isReady(node) && bootID && bootID === kubelets.get(name)?.info().bootID) {
        // Attached means heartbeating too: the Lease is written behind the status, so look for it.
        if (await leaseExists(client, name)) waiting.delete(name);
      }
    }
    if (waiting.size === 0) return;
    if (Date.now() > deadline) {
      throw new SimError(
        'unexpected',
        `nodes not Ready after ${Math.round(timeoutMs / 1000)} s: ${[...waiting].join(', ')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function attachSim(options: AttachOptions): Promise<AttachedSim> {
  if (!Number.isInteger(options.nodes) || options.nodes < 1) {
    throw new SimError('usage', `nodes must be a whole number ≥ 1, got ${options.nodes}`);
  }
  const log = options.log ?? silentLogger();
  const base = new KubeConfig();
  try {
    base.loadFromFile(options.kubeconfig);
  } catch (error) {
    // One line: the reading error itself.
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw new SimError('config_invalid', `cannot read kubeconfig ${options.kubeconfig}: ${first}`, {
      cause: error,
    });
  }
  if (!base.getCurrentCluster()) {
    throw new SimError('config_invalid', `kubeconfig ${options.kubeconfig} names no cluster`, {
      hint: 'check current-context in the kubeconfig, or pass --kubeconfig PATH',
    });
  }
  const admin = kubeJson(base);
  const version = options.kubeletVersion ?? (await serverVersion(admin));
  const prefix = options.prefix ?? DEFAULT_NODE_PREFIX;
  const names = Array.from({ length: options.nodes }, (_, i) => `${prefix}${i}`);
  const ownClock = options.clock === undefined;
  const clock = options.clock ?? createScaledClock({ scale: options.scale ?? 1 });
  const delays: SimDelays = { ...DEFAULT_DELAYS, ...options.delays };
  let hostUrl = '';
  let kubelets: AttachedKubelets | undefined;
  const hosts = options.hostsDir === undefined ? undefined : hostRoots(options.hostsDir);
  const launches = podLaunches((node) => kubelets?.clientFor(node), base, hosts);
  const runner = createJobsRunner({
    images: options.images ?? {},
    clock,
    log,
    prepare: launches.prepare,
    hostUrl: () => hostUrl,
  });
  let hostAdmin: HostAdmin | undefined;
  const release = (): void => {
    kubelets?.stop();
    runner.stopAll();
    launches.close();
    if (ownClock) clock.stop();
  };
  try {
    kubelets = await startAttachedKubelets({
      base,
      names,
      labels: options.labels ?? {},
      ...(options.maxPods === undefined ? {} : { maxPods: options.maxPods }),
      version,
      ctx: { clock, delays },
      runner,
      log,
    });
  } catch (error) {
    release();
    throw error;
  }
  const host = createHost({
    clock,
    delays,
    kubelets,
    ...(hosts ? { onReboot: (node: string) => hosts.booted(node) } : {}),
  });
  try {
    hostAdmin = await startHostAdmin(host, options.hostPort ?? 0);
    hostUrl = hostAdmin.url;
    await waitReady(kubelets, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    host.stop();
    release();
    await hostAdmin?.close();
    throw error;
  }
  const configz: Record<string, KubeletConfigzServer> = {};
  if (options.gracefulShutdown) {
    const config = checkGracefulShutdown(options.gracefulShutdown);
    for (const name of names) {
      const reviews = kubelets.clientFor(name);
      if (reviews) configz[name] = await startKubeletConfigz({ node: name, config, reviews });
      // The kubelet runs with what its `/configz` says: its reboots follow it.
      kubelets.get(name)?.setShutdown(config);
    }
  }
  log.info({ server: admin.server, nodes: names.length, hostUrl }, 'sim kubelets attached');

  let stopped = false;
  const fleet = kubelets;
  return {
    nodes: names,
    server: admin.server,
    kubeconfigPath: options.kubeconfig,
    hostUrl,
    configz,
    clock,
    admin: { ...hostControls(host, runner), flushed: () => fleet.flushed() },
    async stop(stopOptions = {}) {
      if (stopped) return;
      stopped = true;
      host.stop();
      release();
      await Promise.all([hostAdmin?.close(), ...Object.values(configz).map((c) => c.close())]);
      if (!stopOptions.cleanup) return;
      // As the given identity: a node may not delete its own Node (NodeRestriction).
      for (const name of names) {
        try {
          await once(`delete node ${name}`, () =>
            admin.request('DELETE', `/api/v1/nodes/${encodeURIComponent(name)}`),
          );
        } catch (error) {
          if (isApiError(error, 'not-found')) continue;
          if (!isApiError(error, 'forbidden')) throw error;
          log.warn({ node: name, err: error.message }, 'cannot delete the node; it stays');
        }
      }
    },
  };
}

// What a program driving attached kubelets by hand needs (test/real/sim-attach.test.ts).
export { kubeJson, type KubeJson } from './kube-json.js';
export { kubeConfigAs, nodeIdentity } from './node-identity.js';
export { ApiCallError, isApiError, type ApiErrorKind } from './api-errors.js';
