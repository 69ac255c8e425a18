/**
 * `createSim`: the embedded Kubernetes in one call. A scenario seeds the store, the API server serves
 * it over TLS with a kubeconfig written for real clients, and the controllers and kubelets run on one
 * scaled clock; the host endpoint stands for the nodes' machines. `admin` is for tests and the demo:
 * reboot or upgrade a node as its host would, change faults, read the audit and host logs.
 */
import { resolve } from 'node:path';
import { silentLogger, type Logger } from './log.js';
import { SimError } from './errors.js';
import { SYSTEM_PRIORITY_CLASSES } from './priority.js';
import { startHostAdmin, type HostAdmin } from './admin-host.js';
import {
  startApiServer,
  writeKubeconfig,
  DEFAULT_VERSION,
  type ApiServer,
  type FaultRule,
} from './api/index.js';
import { createScaledClock, type OwnedClock } from './clock.js';
import {
  DEFAULT_DELAYS,
  type ControllerContext,
  type SimDelays,
  type Stop,
} from './controllers/context.js';
import { startControllers } from './controllers/index.js';
import { createHost, hostControls, type HostControls } from './host.js';
import { createJobsRunner, type ImageMap } from './jobs-runner.js';
import { storeLaunch } from './jobs-runner-env.js';
import { startKubelets, type Kubelets } from './kubelets.js';
import { isScenarioName, SCENARIOS, type ScenarioName } from './scenarios/index.js';
import { DEFAULT_KUBECONFIG, nodesProblem, SCENARIO_NODES } from './names.js';
import { createStore } from './store.js';
import { R, type AuditEntry, type KObject, type Store } from './types.js';
import { seedObjects } from './seed-objects.js';
import {
  parseApiserver,
  serverVersion,
  startApiservers,
  type ExtraApiservers,
} from './apiservers.js';
import { serverTls } from './tls.js';
import { checkSeed, openSimState } from './state/sim-state.js';
import { SCENARIO_KUBELET_SHUTDOWN } from './scenarios/marks.js';

import {
  bearerReviews,
  startKubeletConfigz,
  type GracefulShutdownConfig,
  type KubeletConfigzServer,
} from './kubelet-configz.js';
export { DEFAULT_KUBECONFIG };
export { SCENARIO_DESCRIPTIONS, SCENARIO_NODES } from './names.js';

// The package's public face (README.md): the sim itself, its object model and store, clocks, the
// scenarios and their builders, the simulated hosts, the jobs runner, and its error and logger types.
export type {
  AuditEntry,
  KObject,
  ObjectMeta,
  OwnerReference,
  ResourceKey,
  Store,
  WatchEvent,
  WatchEventType,
} from './types.js';
export { R, StatusError } from './types.js';
export { createStore } from './store.js';
export {
  createManualClock,
  createScaledClock,
  type ManualClock,
  type OwnedClock,
} from './clock.js';
export {
  SCENARIOS,
  isScenarioName,
  type ScenarioName,
  type ScenarioOptions,
} from './scenarios/index.js';
export {
  POOL_LABEL,
  SYSTEM_NAMESPACES,
  deployment,
  node,
  namespace,
} from './scenarios/builders.js';
export { GRACE_MARKS, REBOOT_MARKS } from './scenarios/marks.js';
export { KUBELET_VERSION, type HostAction, type HostControls } from './host.js';
export { SIM_BIN_DIR, mappingFor, type ImageMap, type ImageMapping } from './jobs-runner.js';
export { SimError, type SimErrorCode } from './errors.js';
export {
  identityLeaseName,
  parseApiserver,
  serverVersion,
  IDENTITY_LABEL,
  PEER_ADDRESS_ANNOTATION,
} from './apiservers.js';
export {
  checkGracefulShutdown,
  NO_GRACEFUL_SHUTDOWN,
  startKubeletConfigz,
  type GracefulShutdownConfig,
  type ShutdownGracePeriodByPodPriority,
  type KubeletConfigzServer,
} from './kubelet-configz.js';
export { silentLogger, type Logger } from './log.js';

export interface SimOptions {
  /** @default 'demo' */
  scenario?: ScenarioName;
  /** `demo` and `fleet`: node count (`empty` takes none). @default SCENARIO_NODES (6 and 50) */
  nodes?: number;
  /** `fleet`: pods per node (max 110). @default 20 */
  podsPerNode?: number;
  /** API server port; 0 picks a free one. @default 0 */
  port?: number;
  /** @default '.kubemaint/sim.kubeconfig' */
  kubeconfigPath?: string;
  /** Sim time runs this many times faster than wall time. @default 1 */
  scale?: number;
  delays?: Partial<SimDelays>;
  faults?: FaultRule[];
  /** Images that run as local commands (see jobs-runner.ts). @default {} */
  images?: ImageMap;
  /** The apiserver version (`/version`), also the kubelets' unless a scenario says otherwise. @default 'v1.31.4' */
  version?: string;
  /** The minor the apiserver emulates (`--emulated-version`, `1.33`): its own minor or the one below. */
  emulatedVersion?: string;
  /**
   * Extra kube-apiservers of an HA control plane, `v1.33.2` or `v1.34.4@1.33` (emulating 1.33): each
   * answers `/version` at the address its identity Lease advertises (apiservers.ts). @default none
   */
  apiservers?: readonly string[];
  /** Run the controllers and kubelets (off: only the API over the seeded store, for load tests). @default true */
  controllers?: boolean;
  /**
   * Objects created after the scenario seeds and before the API serves (an embedding program's RBAC
   * and admission policies), as `kubectl create` would. @default []
   */
  objects?: readonly KObject[];
  /**
   * A directory that keeps the cluster across restarts (ADR 0030): its objects (uids and
   * resourceVersions included), CA, serving certificate, admin token and service-account key. A new
   * directory is seeded from `scenario`; a saved one is served as it was, and a `scenario` or
   * `nodes` that differs from what it was seeded with is refused. @default none: a fresh cluster
   */
  state?: string;
  /** Bring your own clock (a manual one in unit tests). @default a scaled clock */
  clock?: OwnedClock;
  log?: Logger;
}

export interface Sim {
  store: Store;
  clock: OwnedClock;
  url: string;
  kubeconfigPath: string;
  /** The host endpoint (`KUBEMAINT_SIM_HOST_URL` of the pods the sim runs). */
  hostUrl: string;
  /**
   * What tests need to act as someone other than the administrator (test/support/sim-identities.ts):
   * client certificates for any user and groups, ServiceAccount tokens.
   */
  credentials: Pick<ApiServer, 'url' | 'caPem' | 'clientCertificate' | 'serviceAccountToken'>;
  admin: HostControls & {
    /** The kubelet process dies (containers keep running), or comes back. */
    stopKubelet(node: string): void;
    startKubelet(node: string): void;
    setFaults(rules: FaultRule[]): void;
    audit(): readonly AuditEntry[];
    /**
     * Serves `node`'s kubelet `/configz` (kubelet-configz.ts) on a port of its own, checked with the
     * sim's TokenReview and SubjectAccessReview as a kubelet checks it; once per node, later calls
     * set its config. The kubelet runs with it: its reboots follow its graceful shutdown settings.
     * @default config SCENARIO_KUBELET_SHUTDOWN (what a scenario's node annotations say)
     */
    serveConfigz(node: string, config?: GracefulShutdownConfig): Promise<KubeletConfigzServer>;
  };
  stop(): Promise<void>;
}

/**
 * What the serving certificate names: the sim listens on loopback; a real apiserver's certificate
 * also names the kubernetes Service, the name its peer addresses are checked against (apiservers.ts).
 */
const SERVED_HOSTS = ['127.0.0.1', 'localhost', 'kubernetes.default.svc'];

export async function createSim(options: SimOptions = {}): Promise<Sim> {
  const asked = options.scenario ?? 'demo';
  if (!isScenarioName(asked)) {
    throw new RangeError(
      `unknown scenario ${JSON.stringify(asked)}; choose one of ${Object.keys(SCENARIOS).join(', ')}`,
    );
  }
  const problem = options.nodes === undefined ? undefined : nodesProblem(asked, options.nodes);
  if (problem) throw new SimError('usage', problem);
  const version = options.version ?? DEFAULT_VERSION.gitVersion;
  const apiVersion = serverVersion(version, options.emulatedVersion);
  const extraApiservers = (options.apiservers ?? []).map(parseApiserver);
  const log = options.log ?? silentLogger();
  const delays: SimDelays = { ...DEFAULT_DELAYS, ...options.delays };
  // The state's journal stamps writes with sim time; the clock is made once the state says when.
  let simNow = (): Date => new Date();
  const state = options.state
    ? openSimState(options.state, { hosts: SERVED_HOSTS, now: () => simNow() })
    : undefined;
  const saved = state?.loaded;
  try {
    if (state) checkSeed(state.dir, saved?.seed, options);
  } catch (error) {
    state?.close();
    throw error;
  }
  if (saved?.droppedTornWrite)
    log.warn({ state: state?.dir }, 'the last saved write was torn by a crash and is dropped');
  const scenario = saved?.seed && isScenarioName(saved.seed.scenario) ? saved.seed.scenario : asked;
  const seed = {
    scenario,
    nodes: saved?.seed?.nodes ?? options.nodes ?? SCENARIO_NODES[scenario],
  };
  // Time does not run backwards across a restart: sim time goes on from the last saved write.
  const resumeAt =
    saved?.simTime && saved.simTime.getTime() > Date.now() ? saved.simTime : undefined;
  const clock =
    options.clock ??
    createScaledClock({ scale: options.scale ?? 1, ...(resumeAt ? { start: resumeAt } : {}) });
  simNow = () => clock.now();
  const store = createStore({
    now: () => clock.now(),
    ...(saved ? { restore: saved } : {}),
    ...(state ? { onCommit: (record) => state.track(record) } : {}),
  });
  if (!saved) {
    SCENARIOS[scenario].seed(store, {
      version,
      now: clock.now(),
      ...(scenario === 'empty' ? {} : { nodes: seed.nodes }),
      ...(options.podsPerNode === undefined ? {} : { podsPerNode: options.podsPerNode }),
    });
  }
  // Both skip what exists: a restarted sim keeps what it saved, even a class someone changed.
  seedObjects(store, SYSTEM_PRIORITY_CLASSES, 'sim/bootstrap');
  seedObjects(store, options.objects ?? [], 'sim/seed');
  const kubeconfigPath = resolve(options.kubeconfigPath ?? DEFAULT_KUBECONFIG);
  const stops: Stop[] = [];
  const ctx: ControllerContext = { store, clock, delays, log };
  let hostUrl = '';
  const runner = createJobsRunner({
    images: options.images ?? {},
    clock,
    log,
    prepare: storeLaunch(store, () => kubeconfigPath),
    hostUrl: () => hostUrl,
  });
  const running = options.controllers ?? true;
  const kubelets: Kubelets = running
    ? startKubelets(ctx, { version, runner })
    : { get: () => undefined, names: () => [], stop: () => undefined };
  const host = createHost({ clock, delays, kubelets });
  if (running) stops.push(startControllers(ctx));
  const cleanup = (): void => {
    for (const stop of stops) stop();
    kubelets.stop();
    host.stop();
    runner.stopAll();
    clock.stop();
  };
  let hostAdmin: HostAdmin | undefined;
  let api: ApiServer;
  let apiservers: ExtraApiservers | undefined;
  // One serving certificate for every apiserver of the sim, as an HA control plane shares its PKI.
  const tls = state?.credentials.tls ?? serverTls(SERVED_HOSTS);
  try {
    hostAdmin = await startHostAdmin(host);
    apiservers = await startApiservers(store, {
      tls,
      extra: extraApiservers,
      now: clock.now(),
    });
    hostUrl = hostAdmin.url;
    const serve = (port: number) =>
      startApiServer({
        store,
        now: () => clock.now(),
        port,
        version: apiVersion,
        ...(options.faults ? { faults: options.faults } : {}),
        status: () => ({
          scenario,
          scale: clock.scale,
          hostUrl,
          kubelets: kubelets.names().length,
        }),
        podOutput: (key, uid) => runner.output(key, uid),
        tls,
        ...(state
          ? {
              token: state.credentials.adminToken,
              serviceAccountKey: state.credentials.serviceAccountKey,
            }
          : {}),
      });
    // A restarted sim serves where it did, so clients holding its kubeconfig reconnect unchanged.
    const port = options.port ?? 0;
    api =
      port === 0 && saved?.port
        ? await serve(saved.port).catch((error: unknown) => {
            if ((error as { code?: unknown }).code !== 'EADDRINUSE') throw error;
            log.warn(
              { port: saved.port },
              'the port the sim served on before is taken; serving on another',
            );
            return serve(0);
          })
        : await serve(port);
    state?.start({ seed, port: api.port });
  } catch (error) {
    cleanup();
    state?.close();
    await Promise.all([hostAdmin?.close(), apiservers?.stop()]);
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      throw new SimError(
        'usage',
        `cannot serve the sim API on port ${options.port ?? 0}: ${String(code)}`,
        {
          hint: 'pick another --port, or 0 for a free one',
          cause: error,
        },
      );
    }
    throw error;
  }
  writeKubeconfig(kubeconfigPath, {
    url: api.url,
    caPem: api.caPem,
    token: api.token,
    contextName: 'kubemaint-sim',
  });
  log.info({ url: api.url, kubeconfig: kubeconfigPath, scenario }, 'sim serving');

  const kubeletOf = (node: string) => {
    const kubelet = kubelets.get(node);
    if (!kubelet) throw new RangeError(`no kubelet for node ${JSON.stringify(node)}`);
    return kubelet;
  };
  const configz = new Map<string, Promise<KubeletConfigzServer>>();
  const reviews = bearerReviews(api.url, api.caPem, api.token);
  // `/configz` serves what the kubelet runs with: the same config decides what its reboot does.
  const serveConfigz = async (node: string, config?: GracefulShutdownConfig) => {
    const kubelet = kubeletOf(node);
    const running = configz.get(node);
    if (running) {
      const server = await running;
      if (config) server.setConfig(config);
      return server;
    }
    // A scenario's kubelets are configured as its nodes' annotations say (scenarios/marks.ts).
    const served = config ?? { ...SCENARIO_KUBELET_SHUTDOWN };
    kubelet.setShutdown(served);
    // Its setConfig (a kubelet restarted with a new config) changes both.
    const started = startKubeletConfigz({ node, config: served, reviews }).then((server) => ({
      ...server,
      setConfig(next: GracefulShutdownConfig) {
        server.setConfig(next);
        kubelet.setShutdown(next);
      },
    }));
    configz.set(node, started);
    // The Node says where its kubelet listens (status.daemonEndpoints), as a real kubelet's does.
    const port = Number(new URL((await started).url).port);
    store.mutate(R.nodes, undefined, node, (n) => {
      (n.status ??= {})['daemonEndpoints'] = { kubeletEndpoint: { Port: port } };
    });
    return started;
  };
  let stopped = false;
  return {
    store,
    clock,
    url: api.url,
    kubeconfigPath,
    hostUrl,
    credentials: {
      url: api.url,
      caPem: api.caPem,
      clientCertificate: (user, groups) => api.clientCertificate(user, groups),
      serviceAccountToken: (namespace, name, pod) => api.serviceAccountToken(namespace, name, pod),
    },
    admin: {
      ...hostControls(host, runner),
      stopKubelet: (node) => kubeletOf(node).stopKubelet(),
      startKubelet: (node) => kubeletOf(node).startKubelet(),
      setFaults: (rules) => api.setFaults(rules),
      audit: () => store.audit(),
      serveConfigz,
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      cleanup();
      const configzServers = await Promise.all(configz.values());
      await Promise.all([
        hostAdmin?.close(),
        api.close(),
        apiservers?.stop(),
        ...configzServers.map((c) => c.close()),
      ]);
      state?.close();
    },
  };
}
