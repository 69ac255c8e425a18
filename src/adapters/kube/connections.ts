/**
 * One connection pool per cluster and identity, not one per request. client-node 2.0 builds a new
 * undici Agent for every API request (KubeConfig.applySecurityAuthentication → createDispatcher), so
 * every call opened a new TLS connection, parsed the CA again and left the old socket to a timer:
 * in a profile of `serve` answering 20 Slack clicks at once (issue 20), a third of its CPU went to
 * TLS set-up and tear-down. Here each KubeConfig keeps the Agent it built for a set of TLS options
 * and hands it out again, so connections are kept alive and reused as client-go does.
 */
import { createHash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';

/** What createDispatcher returns: an undici Dispatcher, of which only `close` is used here. */
interface Dispatcher {
  close(): Promise<void>;
}
type CreateDispatcher = (cluster: unknown, agentOptions: unknown) => Dispatcher | undefined;

/** A handful is plenty: one per identity and CA, a new one only when a certificate file changes. */
const MAX_POOLS = 8;
const patched = new WeakSet<KubeConfig>();

export function reuseConnections(config: KubeConfig): KubeConfig {
  if (patched.has(config)) return config;
  const target = config as unknown as { createDispatcher?: CreateDispatcher };
  const create = target.createDispatcher;
  // A client-node that no longer has the method (or already pools) is used as it is.
  if (typeof create !== 'function') return config;
  const pools = new Map<string, Dispatcher | undefined>();
  target.createDispatcher = (cluster, agentOptions) => {
    const options = config.createDispatcherOptions(
      cluster as Parameters<KubeConfig['createDispatcherOptions']>[0],
      agentOptions as Parameters<KubeConfig['createDispatcherOptions']>[1],
    );
    // The options hold the CA, certificate and key themselves (read from their files each time),
    // so a rotated certificate gets a pool of its own.
    const key = createHash('sha256').update(JSON.stringify(options)).digest('hex');
    if (pools.has(key)) return pools.get(key);
    const made = create.call(config, cluster, agentOptions);
    pools.set(key, made);
    if (pools.size > MAX_POOLS) {
      const [oldest, pool] = pools.entries().next().value!;
      pools.delete(oldest);
      void pool?.close().catch(() => undefined);
    }
    return made;
  };
  patched.add(config);
  return config;
}
