/**
 * serve's status page, wired: on in the demo (the embedded sim) and off elsewhere unless
 * `serve.statusPage` or `--status-page` says so (it shows every request, its reasons and approvers to
 * whoever reaches the ops port). It draws the last FleetView serve read (the one `/metrics` shows)
 * with the config's windows, freezes and zone.
 */
import type { FleetView } from '../app/control/fleet-view.js';
import type { ControlSettings } from '../app/control/settings.js';
import type { ScannedBound } from '../app/control/tick.js';
import { statusPage, type StatusPage } from '../adapters/http/status-page.js';
import { clusterConfigs } from '../config/cluster-configs.js';
import type { Config } from '../config/schema.js';
import type { TimelineRange } from '../core/timeline.js';
import { PAGE_ICON, PAGE_SCRIPT, PAGE_STYLE } from '../../templates/status-page/assets.js';
import { statusFragment } from '../../templates/status-page/fragment.js';
import { timelineModel } from '../../templates/status-page/model.js';
import { statusPageHtml } from '../../templates/status-page/page.js';
import { clustersFragment, type ClusterPart } from '../../templates/status-page/clusters.js';

/** The flag wins, then the config; unset, it is on for the embedded sim only (every cluster a sim). */
export const statusPageEnabled = (config: Config, flag: boolean | undefined): boolean =>
  flag ?? config.serve.statusPage ?? clusterConfigs(config).every((c) => c.cluster.type === 'sim');

/** One cluster's part of serve's page: what serve's loop of that cluster last read. */
export interface ServedCluster {
  cluster: string;
  settings: Drawn['settings'];
  clock: { now(): Date };
  view?: FleetView;
  unreachable?: string;
  /** The apiserver bound of serve's last skew scan of it (ADR 0050): one line on its part of the page. */
  bound?: ScannedBound;
}

/**
 * serve's page: one cluster's as before `clusters:` (drawn on its control plane's clock, which the
 * sim may scale), else a section per cluster. `current` is empty until the clusters are open.
 */
export function composeServePage(
  several: boolean,
  current: () => readonly ServedCluster[],
): StatusPage {
  if (several) return composeClustersStatusPage({ current, now: () => new Date() });
  const one = () => current()[0];
  return composeStatusPage({
    current: () => {
      const { view, settings, bound } = one() ?? {};
      return view && settings ? { view, settings, ...(bound ? { bound } : {}) } : undefined;
    },
    now: () => one()?.clock.now() ?? new Date(),
  });
}

type Drawn = {
  view: FleetView;
  settings: Pick<ControlSettings, 'schedule' | 'timeZone'>;
  bound?: ScannedBound;
};

/** One cluster's view drawn with its own windows and zone (and its skew scan's bound, once scanned). */
const drawn = ({ view, settings, bound }: Drawn, range: TimelineRange, now: Date): string =>
  statusFragment(
    timelineModel(view, {
      schedule: settings.schedule,
      zone: settings.timeZone,
      range,
      now,
      ...(bound ? { bound } : {}),
    }),
  );

export function composeStatusPage(options: {
  /** The last view read and the settings to draw it with; undefined until the first read. */
  current: () => Drawn | undefined;
  now: () => Date;
}): StatusPage {
  const fragment = (range: TimelineRange): string => {
    const current = options.current();
    if (!current) return '<p class="note">Reading the cluster…</p>';
    return drawn(current, range, options.now());
  };
  return pageOf(() => options.current()?.view.cluster ?? '', fragment);
}

/**
 * The page of a serve with several clusters (`clusters:`): a section per cluster, each drawn as
 * the one-cluster page draws it, and `unreachable: <why>` for a cluster whose last read failed.
 */
export function composeClustersStatusPage(options: {
  /** Each cluster in the config's order: its last view, why it is unreachable, or neither yet. */
  current: () => readonly ({ cluster: string } & (Partial<Drawn> & { unreachable?: string }))[];
  now: () => Date;
}): StatusPage {
  const fragment = (range: TimelineRange): string => {
    const parts = options.current().map((one): ClusterPart => {
      if (one.unreachable !== undefined)
        return { cluster: one.cluster, unreachable: one.unreachable };
      if (!one.view || !one.settings)
        return { cluster: one.cluster, fragment: '<p class="note">Reading the cluster…</p>' };
      const { view, settings, bound } = one;
      return {
        cluster: one.cluster,
        fragment: drawn({ view, settings, ...(bound ? { bound } : {}) }, range, options.now()),
      };
    });
    return clustersFragment(parts);
  };
  return pageOf(
    () =>
      options
        .current()
        .map((one) => one.cluster)
        .join(', '),
    fragment,
  );
}

/** The served page around `fragment`: its title names `clusters()`, its rows the fragment's. */
function pageOf(clusters: () => string, fragment: (range: TimelineRange) => string): StatusPage {
  return statusPage({
    page: (range) => statusPageHtml({ cluster: clusters(), range, fragment: fragment(range) }),
    fragment,
    script: PAGE_SCRIPT,
    style: PAGE_STYLE,
    icon: PAGE_ICON,
  });
}
