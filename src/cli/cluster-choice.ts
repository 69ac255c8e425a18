/**
 * Which cluster a command talks to (ADR 0026): `--cluster NAME` names a cluster of `clusters:`;
 * without that list it is a kubectl context (of `--kubeconfig`, the config's kubeconfig, or
 * kubectl's default one), as `kubectl --context` is. A config that lists several clusters needs
 * the flag for anything but `status`, which then shows them all: no command guesses a cluster.
 */
import { clusterConfigNamed, clusterNames } from '../config/cluster-configs.js';
import type { Config } from '../config/schema.js';
import { KubemaintError } from '../errors.js';

export interface ClusterChoice {
  config: Config;
  /** The --kubeconfig file when it still wins over the chosen cluster's way to reach it. */
  kubeconfigPath?: string;
}

export function chooseCluster(
  config: Config,
  flags: { cluster?: string | undefined; kubeconfig?: string | undefined },
): ClusterChoice {
  const keep = flags.kubeconfig ? { kubeconfigPath: flags.kubeconfig } : {};
  if (config.clusters) {
    if (flags.cluster !== undefined)
      return reachedThrough(clusterConfigNamed(config, flags.cluster), flags.kubeconfig);
    const names = clusterNames(config);
    if (names.length === 1)
      return reachedThrough(clusterConfigNamed(config, names[0]!), flags.kubeconfig);
    throw new KubemaintError(
      'usage',
      `the config lists ${names.length} clusters: say which with --cluster NAME`,
      { hint: `the clusters: ${names.join(', ')}` },
    );
  }
  if (flags.cluster === undefined || flags.cluster === config.cluster.name)
    return { config, ...keep };
  // Not a cluster of the file: a context, read from the kubeconfig kubectl would read.
  const path =
    flags.kubeconfig ??
    (config.cluster.type === 'kubeconfig' ? config.cluster.kubeconfig.path : undefined);
  return {
    config: {
      ...config,
      cluster: {
        type: 'kubeconfig',
        name: flags.cluster,
        kubeconfig: { path, context: flags.cluster },
      },
    },
  };
}

/**
 * A cluster of the list with `--kubeconfig`: the file is read, but the cluster stays the one the
 * entry names. The flag alone would connect to the file's current context, whatever cluster that
 * is, and act there under the named cluster's settings (its approvers, windows, messages): so the
 * entry's context is chosen in that file, and an entry that names none is refused.
 */
function reachedThrough(chosen: Config, kubeconfig: string | undefined): ClusterChoice {
  if (kubeconfig === undefined) return { config: chosen };
  const { cluster } = chosen;
  if (cluster.type === 'kubeconfig' && cluster.kubeconfig.context !== undefined) {
    const reach = { path: kubeconfig, context: cluster.kubeconfig.context };
    return { config: { ...chosen, cluster: { ...cluster, kubeconfig: reach } } };
  }
  const how =
    cluster.type === 'kubeconfig' ? 'the current context of its kubeconfig' : `${cluster.type}`;
  throw new KubemaintError(
    'usage',
    `--kubeconfig cannot say which cluster is "${cluster.name}": its entry in clusters: reaches it by ${how}, not by a context`,
    {
      hint: `leave --kubeconfig out, or give the entry kubeconfig: {context: …} (the context is then read from --kubeconfig)`,
    },
  );
}

/**
 * `--kubeconfig` reaches one cluster, so a command that would work every cluster of the list
 * (serve, status without --cluster) refuses it rather than ignore it or guess which entry it is.
 */
export function refuseOneKubeconfigForSeveral(
  kubeconfig: string | undefined,
  command: string,
): void {
  if (kubeconfig === undefined) return;
  throw new KubemaintError(
    'usage',
    '--kubeconfig names one cluster, and the config lists several',
    {
      hint: `${command} one of them with --cluster NAME, or reach each through its entry of clusters:`,
    },
  );
}

/** `status` without --cluster reads every cluster of the list; one of them when named. */
export const readsEveryCluster = (config: Config, flag: string | undefined): boolean =>
  flag === undefined && (config.clusters?.length ?? 0) > 1;
