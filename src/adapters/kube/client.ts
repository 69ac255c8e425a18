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
  VersionApi,
  Watch,
} from '@kubernetes/client-node';
import { KubemaintError } from '../../errors.js';
import { reuseConnections } from './connections.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';

export interface KubeClient {
  readonly config: KubeConfig;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
  readonly batch: BatchV1Api;
  /** kubemaint's own kinds (MaintenanceRequest, MaintenanceApproval). */
  readonly custom: CustomObjectsApi;
  readonly version: VersionApi;
  readonly watch: Watch;
  readonly retry: RetryPolicy;
}

export function createKubeClient(
  config: KubeConfig,
  retry: RetryPolicy = DEFAULT_RETRY,
): KubeClient {
  // Every client made from this config (and the watches) shares one connection pool.
  reuseConnections(config);
  return {
    config,
    core: config.makeApiClient(CoreV1Api),
    coordination: config.makeApiClient(CoordinationV1Api),
    batch: config.makeApiClient(BatchV1Api),
    custom: config.makeApiClient(CustomObjectsApi),
    version: config.makeApiClient(VersionApi),
    watch: new Watch(config),
    retry,
  };
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
