/**
 * `kubemaint status` when the config lists several clusters and no `--cluster` names one: every
 * cluster read at once, each through its own connection with a time limit, printed in the
 * config's order; a cluster that cannot be opened or read is `unreachable: <why>` and the others
 * are shown all the same (issue 22).
 */
import { readClusterFleets } from '../../app/control/cluster-fleets.js';
import { fitsOf } from '../../app/control/durations.js';
import type { ControlRuntime } from '../../compose.js';
import { clusterConfigs } from '../../config/cluster-configs.js';
import type { Config } from '../../config/schema.js';
import { createLogger } from '../../log.js';
import {
  statusAcrossJson,
  statusAcrossTable,
  type ClusterStatus,
} from '../../../templates/cli-status-clusters.js';
import { out } from '../output.js';

export async function statusAcross(
  config: Config,
  options: { node?: string | undefined; json?: boolean | undefined; as?: string | undefined },
): Promise<void> {
  const log = createLogger({ service: 'cli', level: process.env['KUBEMAINT_LOG_LEVEL'] ?? 'warn' });
  const { openControl } = await import('../../compose.js');
  const shown = await Promise.all(
    clusterConfigs(config).map(async (one): Promise<ClusterStatus> => {
      const cluster = one.cluster.name ?? 'cluster';
      let runtime: ControlRuntime | undefined;
      try {
        runtime = await openControl(one, {
          log,
          sim: 'attach',
          ...(options.as ? { impersonate: options.as } : {}),
        });
        const [read] = await readClusterFleets([{ name: cluster, deps: runtime.deps }]);
        if (!read || 'unreachable' in read) return read ?? { cluster, unreachable: 'not read' };
        const { view } = read;
        const requests = view.requests.filter((r) => !options.node || r.node === options.node);
        const nodes = view.nodes.filter((n) => !options.node || n.name === options.node);
        const fits = await fitsOf(runtime.deps, requests);
        return { cluster, view: { ...view, requests, nodes, fits } };
      } catch (error) {
        return { cluster, unreachable: error instanceof Error ? error.message : String(error) };
      } finally {
        await runtime?.close();
      }
    }),
  );
  out(options.json ? statusAcrossJson(shown) : statusAcrossTable(shown, new Date()));
}
