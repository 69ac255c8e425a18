/**
 * Each cluster's config as the control plane runs it (ADR 0026): the shared file with the entry's
 * way to reach it as `cluster:` and its own sections in place of the top-level ones. Everything
 * that opens a control plane takes one of these, so one cluster of a list runs exactly as a file
 * with one `cluster:` would. Without `clusters:` there is one: the file itself, unchanged.
 */
import { KubemaintError } from '../errors.js';
import type { ClusterEntry, Config } from './schema.js';

export function clusterConfigs(config: Config): Config[] {
  return config.clusters?.map((entry) => configForCluster(config, entry)) ?? [config];
}

export function configForCluster(config: Config, entry: ClusterEntry): Config {
  const { clusters: _all, ...shared } = config;
  const own = entry.overrides;
  return {
    ...shared,
    cluster: entry.cluster,
    ...(own.windows ? { windows: own.windows } : {}),
    ...(own.freezes ? { freezes: own.freezes } : {}),
    ...(own.slot ? { slot: own.slot } : {}),
    ...(own.approval ? { approval: own.approval } : {}),
    ...(own.slack ? { slack: { ...config.slack, ...own.slack } } : {}),
  };
}

/** The names `clusters:` lists, in its order; empty without the list. */
export const clusterNames = (config: Config): string[] =>
  config.clusters?.map((entry) => entry.name) ?? [];

/**
 * The config of the cluster called `name`. A name the list lacks is a usage error that lists the
 * names there are, so a typo in `--cluster prod-eu` is said, never taken for another cluster.
 */
export function clusterConfigNamed(config: Config, name: string): Config {
  const entry = config.clusters?.find((e) => e.name === name);
  if (entry) return configForCluster(config, entry);
  const names = clusterNames(config);
  throw new KubemaintError('usage', `no cluster named "${name}" in clusters:`, {
    hint: names.length > 0 ? `the clusters: ${names.join(', ')}` : 'the config lists no clusters',
  });
}
