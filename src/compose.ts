/**
 * Composition root: a validated config in, the control plane's dependencies out — the cluster
 * adapter over the right connection, settings mapped from the config, notifiers fanned out (console,
 * notification URLs, Slack when given), alerts when Prometheus is configured. `serve`, the CLI and
 * the Lambda functions all start here, so they cannot drift apart.
 */
import { randomBytes } from 'node:crypto';
import type { CommandDeps } from './app/control/commands.js';
import type { Clock, Notifier } from './app/control/ports.js';
import type { TickDeps } from './app/control/tick.js';
import type { ClusterPeersPort } from './app/control/cluster-gate.js';
import { createKubeClient, type KubeClient } from './adapters/kube/client.js';
import { DEFAULT_RETRY } from './adapters/kube/retry.js';
import { settableFence, type SettableFence } from './adapters/kube/write-fence.js';
import { watchNodes } from './adapters/kube/node-cache.js';
import { controlCluster } from './adapters/kube/control-cluster.js';
import { configMapAgentSettings } from './adapters/kube/agent-settings.js';
import { kubeRetention } from './adapters/kube/retention.js';
import { kubeStorageVersions } from './adapters/kube/storage-versions.js';
import { configMapDurations } from './adapters/kube/durations.js';
import { createNotifier } from './adapters/notify/notifier.js';
import { parseNotifyUrls } from './adapters/notify/parse.js';
import { alertmanagerFromConfig } from './adapters/alertmanager/from-config.js';
import {
  prometheusAlertsFromConfig,
  prometheusQueriesFromConfig,
} from './adapters/prometheus/from-config.js';
import { lonePeers } from './compose/cluster-peers.js';
import { connectCluster, type Connection, type ConnectOptions } from './compose/connect.js';
import { controlSettingsFromConfig } from './compose/control-settings.js';
import { forSimHost } from './compose/sim-host.js';
import type { Config } from './config/schema.js';
import type { Logger } from './log.js';
import { compileMessageTemplates } from '../templates/notify/messages.js';

export interface OpenOptions extends ConnectOptions {
  clock?: Pick<Clock, 'now'>;
  /** More notifiers: the console in `serve`, Slack when it is configured. */
  notifiers?: Notifier[];
  /** Where secrets named in the config are read (`alertmanager.auth`). @default process.env */
  env?: Record<string, string | undefined>;
  /** The other clusters, for the cross-cluster gate (compose/clusters.ts; ADR 0027). */
  peers?: ClusterPeersPort;
  /**
   * Keep every node from a watch (`serve`, ADR 0059): a long-running process reads the whole fleet
   * on every tick a request waits; a Lambda or a CLI command reads it once and does not.
   */
  watchNodes?: boolean;
}

export interface ControlRuntime {
  deps: TickDeps & CommandDeps;
  client: KubeClient;
  /** Asked before each write of `client` and `deps`: open, until serve's loop holds it to its Lease. */
  writes: SettableFence;
  connection: Connection;
  /** The config as the control plane uses it (host commands rewritten for the sim). */
  config: Config;
  /** Wait for notifications in flight (before a Lambda returns, before exit). */
  flush(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function openControl(config: Config, options: OpenOptions): Promise<ControlRuntime> {
  const effective = config.cluster.type === 'sim' ? forSimHost(config) : config;
  const settings = controlSettingsFromConfig(effective);
  const connection = await connectCluster(effective, options);
  const writes = settableFence();
  const client = createKubeClient(connection.kubeConfig, DEFAULT_RETRY, writes);
  const clock = options.clock ?? { now: () => new Date() };
  const urls = createNotifier({
    targets: parseNotifyUrls(effective.notify.urls),
    templates: compileMessageTemplates({ templates: effective.notify.templates }),
    log: options.log.child({ component: 'notify' }),
  });
  const notifiers: Notifier[] = [
    ...(effective.notify.urls.length > 0
      ? [{ notify: (event) => urls.notify(event) } satisfies Notifier]
      : []),
    ...(options.notifiers ?? []),
  ];
  const alerts = prometheusAlertsFromConfig(effective.blockers.prometheus);
  const queries = prometheusQueriesFromConfig(effective.blockers.prometheus);
  const silences = alertmanagerFromConfig(effective.alertmanager, {
    cluster: settings.cluster,
    env: options.env ?? process.env,
  });
  const nodeCache = options.watchNodes
    ? watchNodes(connection.kubeConfig, { log: options.log.child({ component: 'node-cache' }) })
    : undefined;
  const deps: TickDeps & CommandDeps = {
    cluster: controlCluster(client, {
      namespace: effective.namespace,
      now: () => clock.now(),
      warn: (fields, message) => options.log.warn(fields, message),
      ...(nodeCache ? { nodeCache } : {}),
    }),
    notifier: fanOut(notifiers, options.log),
    clusterName: settings.cluster,
    settings,
    clock,
    randomBytes: (count) => new Uint8Array(randomBytes(count)),
    ...(alerts ? { alerts } : {}),
    ...(queries ? { queries } : {}),
    ...(silences ? { silences } : {}),
    ...(effective.durations.learn
      ? { durations: configMapDurations(client, effective.namespace) }
      : {}),
    agentSettings: configMapAgentSettings(client, effective.namespace),
    retention: kubeRetention(client, effective.namespace),
    storageVersions: kubeStorageVersions(client, effective.namespace),
    ...peersOf(effective, settings.cluster, options.peers),
  };
  return {
    deps,
    client,
    writes,
    connection,
    config: effective,
    flush: (timeoutMs = 5_000) => urls.flush(timeoutMs),
    close: async () => {
      nodeCache?.stop();
      await urls.flush(2_000);
      await connection.close();
    },
  };
}

/** Every notifier hears every event; one that throws is logged and never stops the others. */
function fanOut(notifiers: readonly Notifier[], log: Logger): Notifier {
  return {
    async notify(event, request) {
      const results = await Promise.allSettled(notifiers.map((n) => n.notify(event, request)));
      for (const result of results) {
        if (result.status === 'rejected')
          log.warn({ err: result.reason, event: event.kind }, 'notifier failed');
      }
    },
  };
}

/**
 * The gate's view of the other clusters: the set's, or, for one cluster of a list opened alone
 * with `blockers.clusters` set, a port that holds what the gate would judge (never a skipped gate).
 */
function peersOf(
  config: Config,
  cluster: string,
  peers: ClusterPeersPort | undefined,
): { peers?: ClusterPeersPort } {
  if (peers) return { peers };
  const gate = config.blockers.clusters;
  return gate ? { peers: lonePeers(gate, cluster) } : {};
}
