/**
 * The cluster connection: a KubeConfig (file, KUBECONFIG/~/.kube/config, or in-cluster service
 * account) and the typed API clients made from it. Every other file of the adapter takes a
 * KubeClient, so tests can point one at a loopback server.
 */
import {
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PolicyV1Api,
  VersionApi,
  Watch,
  type RequestContext,
} from '@kubernetes/client-node';
import { KubemaintError } from '../../errors.js';
import { reuseConnections } from './connections.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { checkFence, type WriteFence } from './write-fence.js';

export interface KubeClient {
  readonly config: KubeConfig;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
  readonly batch: BatchV1Api;
  readonly policy: PolicyV1Api;
  /** kubemaint's own kinds (MaintenanceRequest, MaintenanceApproval). */
  readonly custom: CustomObjectsApi;
  readonly version: VersionApi;
  readonly watch: Watch;
  readonly retry: RetryPolicy;
}

export function createKubeClient(
  config: KubeConfig,
  retry: RetryPolicy = DEFAULT_RETRY,
  /** Asked before each write the API clients send (write-fence.ts); none: every write is sent. */
  fence?: WriteFence,
): KubeClient {
  // Every client made from this config (and the watches) shares one connection pool.
  reuseConnections(config);
  const maker = fence ? fenced(config, fence) : config;
  return {
    config,
    core: maker.makeApiClient(CoreV1Api),
    coordination: maker.makeApiClient(CoordinationV1Api),
    batch: maker.makeApiClient(BatchV1Api),
    policy: maker.makeApiClient(PolicyV1Api),
    custom: maker.makeApiClient(CustomObjectsApi),
    version: maker.makeApiClient(VersionApi),
    watch: new Watch(config),
    retry,
  };
}

/**
 * The config as the API clients' authentication, asking the fence first. client-node applies it to
 * every request it sends (makeApiClient names the config itself as the auth method), retries
 * included, so no write goes out unasked. Everything else (the cluster, the user, the connection
 * pool) is the config's own, read through the prototype.
 */
function fenced(config: KubeConfig, fence: WriteFence): KubeConfig {
  const view = Object.create(config) as KubeConfig;
  view.applySecurityAuthentication = async (context: RequestContext) => {
    checkFence(fence, context);
    await config.applySecurityAuthentication(context);
  };
  return view;
}

/**
 * Load a kubeconfig: the file at `path` when given, else the default chain of client-node
 * (KUBECONFIG, ~/.kube/config, then the in-cluster service account, which is what the Job uses).
 */
export function loadKubeConfig(path?: string): KubeConfig {
  const config = new KubeConfig();
  try {
    if (path) config.loadFromFile(path);
    else config.loadFromDefault();
  } catch (error) {
    throw new KubemaintError('config_invalid', `cannot read kubeconfig ${path ?? '(default)'}`, {
      hint: 'pass --kubeconfig PATH, or set KUBECONFIG to a readable kubeconfig file',
      cause: error,
    });
  }
  if (!config.getCurrentCluster()) {
    throw new KubemaintError(
      'config_invalid',
      `kubeconfig ${path ?? '(default)'} names no cluster`,
      {
        hint: 'check current-context in the kubeconfig, or pass --kubeconfig PATH',
      },
    );
  }
  return reuseConnections(config);
}

/** A kubeconfig for a plain server URL, as tests and the sim use it. */
export function kubeConfigFor(server: string, token = 'kubemaint'): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: server.startsWith('http://') }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return config;
}
