/**
 * `/maint status` with several clusters and none named (issue 22): one digest across them, a few
 * lines per cluster in the config's order (paused or not, the window, its open requests), read
 * from every cluster at once (readClusterFleets), so one that does not answer costs its timeout
 * and is named as unreachable, with why, beside the others.
 */
import { readClusterFleets, type ClusterFleet } from '../../app/control/cluster-fleets.js';
import { isActive } from '../../core/request.js';
import { escapeMrkdwn as esc, fitLines } from './mrkdwn.js';
import { describeRequest, pauseLine } from './run-command.js';
import type { SlackRuntime } from './runtime.js';

/** Open requests listed per cluster; the rest are counted (`status <cluster>` lists them all). */
const LISTED = 8;

export async function clusterDigest(
  runtimes: readonly SlackRuntime[],
  slash: string,
): Promise<string> {
  const fleets = await readClusterFleets(
    runtimes.map((rt) => ({ name: rt.settings.cluster, deps: rt.deps })),
  );
  const zone = (cluster: string) =>
    runtimes.find((rt) => rt.settings.cluster === cluster)?.deps.settings.timeZone ?? 'UTC';
  return fitLines(fleets.flatMap((fleet) => linesOf(fleet, zone(fleet.cluster), slash)));
}

function linesOf(fleet: ClusterFleet, timeZone: string, slash: string): string[] {
  const name = `*${esc(fleet.cluster)}*`;
  if ('unreachable' in fleet) return [`${name}: :warning: unreachable: ${esc(fleet.unreachable)}`];
  const { view } = fleet;
  const open = view.requests.filter((r) => isActive(r.state));
  const head = `${name}: ${pauseLine(view.pause, timeZone)} · ${esc(view.window.line)}`;
  if (open.length === 0) return [`${head} · no open requests`];
  const more = open.length - LISTED;
  return [
    `${head} · ${open.length} open:`,
    ...open.slice(0, LISTED).map((r) => `• ${describeRequest(r)}`),
    ...(more > 0
      ? [`• … ${more} more: \`${esc(slash)} status ${esc(fleet.cluster)}\` lists them`]
      : []),
  ];
}
