/**
 * Every cluster of the config, each with a control plane of its own (ADR 0026): its own connection,
 * ClusterPort, settings (its windows, slots, approvers, channel) and notifiers, opened by
 * `openControl` exactly as a one-cluster file is. Nothing of one cluster's runtime reaches another's
 * tick; the only read across them is the cross-cluster gate's (cluster-peers.ts, ADR 0027).
 * Without `clusters:` the set holds the one cluster of `cluster:`, named as today.
 *
 * serve, the tick Lambda, the CLI and the Slack app find a cluster's deps by name here:
 * `clusters.get('prod-eu').deps`.
 */
import type { Notifier } from '../app/control/ports.js';
import { openControl, type ControlRuntime, type OpenOptions } from '../compose.js';
import { clusterConfigs } from '../config/cluster-configs.js';
import type { Config } from '../config/schema.js';
import { KubemaintError } from '../errors.js';
import { clusterPeers } from './cluster-peers.js';

/** One cluster's control plane; `name` is its `deps.settings.cluster`. */
export interface ClusterRuntime extends ControlRuntime {
  name: string;
}

export interface ClusterSet {
  /** In the config's order. */
  readonly runtimes: readonly ClusterRuntime[];
  readonly names: readonly string[];
  /** The config lists clusters (`clusters:`): every message, metric and row names its cluster. */
  readonly several: boolean;
  find(name: string): ClusterRuntime | undefined;
  /** The cluster called `name`; a name there is not is a usage error listing those there are. */
  get(name: string): ClusterRuntime;
  /** Wait for every cluster's notifications in flight. */
  flush(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface OpenClustersOptions extends Omit<OpenOptions, 'notifiers' | 'peers'> {
  /** The notifiers of one cluster (console, metrics, its Slack channel), given its config. */
  notifiersFor?: (config: Config) => Notifier[];
}

export async function openClusters(
  config: Config,
  options: OpenClustersOptions,
): Promise<ClusterSet> {
  const configs = clusterConfigs(config);
  const names = configs.map((c) => nameOf(c));
  const gate = config.blockers.clusters;
  const peers = gate && config.clusters ? clusterPeers({ gate, names }) : undefined;
  const runtimes: ClusterRuntime[] = [];
  try {
    for (const [i, one] of configs.entries()) {
      const name = names[i]!;
      const runtime = await openControl(one, {
        ...options,
        log: config.clusters ? options.log.child({ cluster: name }) : options.log,
        notifiers: options.notifiersFor?.(one) ?? [],
        ...(peers ? { peers: peers.port } : {}),
      });
      peers?.add(name, runtime.deps.cluster);
      runtimes.push({ ...runtime, name });
      refuseOneServerTwice(runtimes);
    }
  } catch (error) {
    await Promise.allSettled(runtimes.map((r) => r.close()));
    throw error;
  }
  return clusterSet(runtimes, config.clusters !== undefined);
}

export function clusterSet(runtimes: ClusterRuntime[], several: boolean): ClusterSet {
  const names = runtimes.map((r) => r.name);
  const find = (name: string) => runtimes.find((r) => r.name === name);
  return {
    runtimes,
    names,
    several,
    find,
    get(name) {
      const found = find(name);
      if (found) return found;
      throw new KubemaintError('usage', `no cluster named "${name}"`, {
        hint: `the clusters: ${names.join(', ')}`,
      });
    },
    flush: async (timeoutMs) => {
      await Promise.all(runtimes.map((r) => r.flush(timeoutMs)));
    },
    close: async () => {
      await Promise.allSettled(runtimes.map((r) => r.close()));
    },
  };
}

/**
 * Two entries whose contexts differ but name one apiserver (the config alone cannot see it): two
 * control loops on one cluster's requests, each judging them by its own entry's approvers,
 * windows and slots, and the gate across clusters counting one cluster as two. Refused at start.
 */
function refuseOneServerTwice(runtimes: readonly ClusterRuntime[]): void {
  const last = runtimes.at(-1)!;
  const server = serverOf(last);
  const first = runtimes.find((r) => r !== last && server && serverOf(r) === server);
  if (!first) return;
  throw new KubemaintError(
    'config_invalid',
    `clusters ${first.name} and ${last.name} reach the same apiserver (${server}): one cluster listed twice would be worked by two control loops, each with its own approvers, windows and slots`,
    { hint: 'list each cluster once in clusters:, with the context that reaches it' },
  );
}

const serverOf = (runtime: ClusterRuntime): string | undefined =>
  runtime.connection.kubeConfig.getCurrentCluster()?.server.toLowerCase().replace(/\/+$/, '');

/** The name a cluster's messages, metrics and status use (control-settings.ts says the same). */
const nameOf = (config: Config): string => config.cluster.name ?? 'cluster';
