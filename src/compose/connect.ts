/**
 * The cluster a config names, as a KubeConfig: a kubeconfig file and context, the in-cluster service
 * account, EKS (a bearer token presigned locally and refreshed before it expires), or the embedded
 * sim — started here for `serve` and the demo, or found through the kubeconfig the running demo wrote
 * (so `npx kubemaint approve …` in the project folder needs no flags).
 */
import { existsSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { resolve } from 'node:path';
import { KubeConfig, type User } from '@kubernetes/client-node';
import { loadKubeConfig } from '../adapters/kube/client.js';
import { impersonating } from '../adapters/kube/whoami.js';
import { credentialsFrom } from '../adapters/aws/credentials.js';
import { createEksTokenProvider, type EksTokenProvider } from '../adapters/aws/eks-token-cache.js';
import type { ClusterConfig, Config } from '../config/schema.js';
import { KubemaintError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Sim } from '@kubemaint/kubesim';
import { simExecutorImages } from './sim-host.js';
import { bindDemoPeople, installKubemaintKinds } from './sim-kinds.js';
import { kubemaintAccessObjects } from './sim-access.js';

/**
 * Where the demo's embedded cluster writes its kubeconfig, and where every command looks for it. Our
 * own constant (kubesim's default is the same path), so connecting never loads the simulator.
 */
export const DEMO_KUBECONFIG = '.kubemaint/sim.kubeconfig';

/**
 * Where the demo's embedded cluster keeps its objects and CA across restarts (ADR 0030), for
 * `kubemaint sim` and for the sim `serve` starts: both are the demo of this folder.
 */
export const DEMO_SIM_STATE = '.kubemaint/sim-state';

export interface Connection {
  kubeConfig: KubeConfig;
  /** Where a kubeconfig for this cluster is on disk, when there is one (the sim writes its own). */
  kubeconfigPath?: string;
  /** The sim this process started, when it started one. */
  sim?: Sim;
  close(): Promise<void>;
}

export interface ConnectOptions {
  log: Logger;
  /** `start` runs the embedded sim in this process (serve, the demo); `attach` finds a running one. */
  sim?: 'start' | 'attach';
  /** A kubeconfig file that wins over the config's cluster (the CLI's --kubeconfig). */
  kubeconfigPath?: string;
  /** Act as this user (kubectl's --as): impersonation, authorised by the apiserver's RBAC. */
  impersonate?: string;
  env?: NodeJS.ProcessEnv;
}

export async function connectCluster(config: Config, options: ConnectOptions): Promise<Connection> {
  const connection = await connect(config, options);
  if (options.impersonate === undefined) return connection;
  if (config.cluster.type === 'eks' && !options.kubeconfigPath) {
    throw new KubemaintError('usage', '--as is not available with cluster.type eks', {
      hint: 'use a kubeconfig (--kubeconfig) whose user may impersonate, as with kubectl --as',
    });
  }
  return { ...connection, kubeConfig: impersonating(connection.kubeConfig, options.impersonate) };
}

async function connect(config: Config, options: ConnectOptions): Promise<Connection> {
  const done = () => Promise.resolve();
  if (options.kubeconfigPath) {
    const path = resolve(options.kubeconfigPath);
    return { kubeConfig: loadKubeConfig(path), kubeconfigPath: path, close: done };
  }
  const cluster = config.cluster;
  switch (cluster.type) {
    case 'sim':
      return options.sim === 'start'
        ? startSim(config, cluster, options.log)
        : findRunningDemo(cluster.kubeconfigPath ?? DEMO_KUBECONFIG);
    case 'kubeconfig': {
      const kubeConfig = loadKubeConfig(cluster.kubeconfig.path);
      if (cluster.kubeconfig.context) useContext(kubeConfig, cluster.kubeconfig.context);
      return { kubeConfig, close: done };
    }
    case 'in-cluster': {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromCluster();
      return { kubeConfig, close: done };
    }
    case 'eks':
      return { kubeConfig: eksKubeConfig(cluster, options.env ?? process.env), close: done };
  }
}

async function startSim(
  config: Config,
  cluster: Extract<ClusterConfig, { type: 'sim' }>,
  log: Logger,
): Promise<Connection> {
  // Imported only when the sim is started here: the Lambda functions and the CLI never start one.
  const { createSim } = await import('@kubemaint/kubesim');
  const sim = await createSim({
    objects: kubemaintAccessObjects(),
    scenario: cluster.sim.scenario,
    nodes: cluster.sim.nodes,
    port: cluster.sim.port,
    // One of several sims (`clusters:`) keeps a kubeconfig and a state of its own.
    kubeconfigPath: cluster.kubeconfigPath ?? DEMO_KUBECONFIG,
    state: cluster.kubeconfigPath ? `${DEMO_SIM_STATE}-${cluster.name}` : DEMO_SIM_STATE,
    images: simExecutorImages(config.executor.image),
    // Shorter than a real machine (60 s), so the demo's walkthrough stays short.
    delays: { rebootDowntimeMs: 20_000, upgradeDowntimeMs: 10_000 },
    log: log.child({ component: 'sim' }),
  });
  const kubeConfig = loadKubeConfig(sim.kubeconfigPath);
  await installKubemaintKinds(kubeConfig);
  await bindDemoPeople(kubeConfig);
  return {
    kubeConfig,
    kubeconfigPath: sim.kubeconfigPath,
    sim,
    close: () => sim.stop(),
  };
}

/**
 * The demo that `kubemaint serve` (or `npm start`) runs in this folder, found through the kubeconfig
 * it wrote. A kubeconfig left behind by a stopped demo is checked with one TCP connect, so a demo
 * that is not running is said at once rather than after the API client's retries.
 */
async function findRunningDemo(kubeconfig: string): Promise<Connection> {
  const path = resolve(kubeconfig);
  const kubeConfig = existsSync(path) ? loadKubeConfig(path) : undefined;
  const server = kubeConfig?.getCurrentCluster()?.server;
  if (!kubeConfig || !server || !(await answers(new URL(server)))) {
    throw new KubemaintError('config_invalid', DEMO_NOT_RUNNING);
  }
  return { kubeConfig, kubeconfigPath: path, close: () => Promise.resolve() };
}

/** One line, no hint under it: it says what to do. */
export const DEMO_NOT_RUNNING =
  'the demo is not running: start it with `kubemaint serve` in this folder (`npm start` in a ' +
  'checkout), or give a cluster with --config or --kubeconfig';

/** Does anything accept a connection at the URL's host and port? (a loopback refusal is instant) */
function answers(url: URL): Promise<boolean> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((done) => {
    const socket = connectTcp({ host, port, timeout: 2_000 });
    const settle = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.once('connect', () => settle(true));
    socket.once('timeout', () => settle(false));
    socket.once('error', () => settle(false));
  });
}

function useContext(kubeConfig: KubeConfig, context: string): void {
  if (!kubeConfig.getContextObject(context)) {
    const known = kubeConfig.getContexts().map((c) => c.name);
    throw new KubemaintError('config_invalid', `the kubeconfig has no context "${context}"`, {
      hint: known.length ? `its contexts: ${known.join(', ')}` : 'it defines no contexts',
    });
  }
  kubeConfig.setCurrentContext(context);
}

/**
 * client-node reads the user's token on every request: both of its async entry points first make
 * sure the token is current (signing is async now that the credentials chain is), then read it.
 */
class EksKubeConfig extends KubeConfig {
  readonly #tokens: EksTokenProvider;
  #token = '';

  constructor(tokens: EksTokenProvider) {
    super();
    this.#tokens = tokens;
  }

  override getCurrentUser(): User | null {
    const user = super.getCurrentUser();
    return user ? { ...user, token: this.#token } : null;
  }

  override async applyToHTTPSOptions(
    ...args: Parameters<KubeConfig['applyToHTTPSOptions']>
  ): Promise<void> {
    this.#token = (await this.#tokens.get()).token;
    return super.applyToHTTPSOptions(...args);
  }

  override async applySecurityAuthentication(
    ...args: Parameters<KubeConfig['applySecurityAuthentication']>
  ): Promise<void> {
    this.#token = (await this.#tokens.get()).token;
    return super.applySecurityAuthentication(...args);
  }
}

function eksKubeConfig(cluster: Extract<ClusterConfig, { type: 'eks' }>, env: NodeJS.ProcessEnv) {
  const tokens = createEksTokenProvider({
    clusterName: cluster.eks.name,
    region: cluster.eks.region,
    credentials: credentialsFrom(env, { roleArn: cluster.eks.roleArn, region: cluster.eks.region }),
    now: () => new Date(),
  });
  const kubeConfig = new EksKubeConfig(tokens);
  kubeConfig.loadFromOptions({
    clusters: [{ name: cluster.name, server: cluster.eks.endpoint, caData: cluster.eks.caData }],
    users: [{ name: 'kubemaint', token: '' }],
    contexts: [{ name: cluster.name, cluster: cluster.name, user: 'kubemaint' }],
    currentContext: cluster.name,
  });
  return kubeConfig;
}
