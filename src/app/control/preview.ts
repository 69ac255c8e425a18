/**
 * The preview shown in an approval prompt (DESIGN §1 step 2): which pods a drain of the node would
 * evict, which budgets leave no headroom right now (a dry-run eviction per pod), what would stop the
 * change if it were approved now, and when the next window opens. Read-only; a fact that cannot be
 * read goes to `errors` and the rest is still shown, because a prompt with a gap beats no prompt.
 */
import type { Pod } from '../../core/drain-filters.js';
import { readGracefulShutdown, type GracefulShutdown } from '../../core/graceful-shutdown.js';
import { describeTime, evaluatePolicy, type PolicyFacts } from '../../core/policy.js';
import { describeSchedule } from '../../core/windows.js';
import type { PodInfo } from '../ports.js';
import { blockingPodFacts, drainSelection, pdbFacts, readable, windowFacts } from './facts.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { expectedFor, fitLine, readBook, type DurationsPort } from './durations.js';
import type { ClusterPort, Clock, NodeView } from './ports.js';
import type { ControlSettings, DrainChoice } from './settings.js';

export interface Preview {
  node: string;
  /** ISO instant the preview was taken. */
  at: string;
  kubeletVersion?: string;
  /** From the reporter's `kubemaint.io/reboot-required-since` annotation. */
  rebootRequiredSince?: string;
  /** From `kubemaint.io/reboot-required-packages` (the packages that asked for the reboot). */
  packages: string[];
  /**
   * The kubelet's graceful-shutdown setting from the reporter agent's annotations (ADR 0049);
   * absent when the node could not be read.
   */
  gracefulShutdown?: GracefulShutdown;
  /** Pods the drain would evict, `namespace/name`. */
  evict: string[];
  /** Pods left in place on purpose (DaemonSet, mirror, finished), each with why. */
  skipped: { pod: string; reason: string }[];
  /** kubectl's grouped warnings: emptyDir data deleted, pods without a controller deleted. */
  warnings: string[];
  /** Budgets that refuse a dry-run eviction now (no headroom), with the pods they hold back. */
  budgets: { name: string; pods: string[] }[];
  /** What would stop the change if it were approved now (pause, freeze, window, pods, PDBs). */
  blockers: string[];
  window: {
    open: boolean;
    /** `Sat 02:00 UTC`, in the configured zone. */
    closesAt?: string;
    nextOpening?: string;
    freeze?: string;
    /** One line per configured window and freeze. */
    schedule: string[];
    /**
     * Whether the work fits in the open window, from observed durations once there are any:
     * "fits: about 7 min, window closes in 42 min" (ADR 0017). Absent without a request.
     */
    fit?: string;
  };
  /** Facts that could not be read. */
  errors: string[];
}

export interface PreviewDeps {
  cluster: ClusterPort;
  settings: Pick<
    ControlSettings,
    | 'schedule'
    | 'timeZone'
    | 'blockers'
    | 'detection'
    | 'drain'
    | 'expectedDurationMs'
    | 'durations'
  >;
  clock: Pick<Clock, 'now'>;
  durations?: DurationsPort;
}

/** The preview of a drain of `node`; with `request`, also whether it fits the window. */
export async function previewRequest(
  deps: PreviewDeps,
  node: string,
  request?: Pick<MaintenanceRequest, 'action' | 'pool'>,
): Promise<Preview> {
  const { cluster, settings } = deps;
  const now = deps.clock.now();
  const errors: string[] = [];
  const view = await readable(() => cluster.getNode(node));
  let info: NodeView | undefined;
  if (view === undefined) errors.push(`node ${node} not found`);
  else if ('error' in view) errors.push(`node ${node}: ${view.error}`);
  else info = view;
  const annotations = info?.annotations ?? {};
  const sinceKey = settings.detection.sinceAnnotation;
  const packagesKey = settings.detection.packagesAnnotation;

  const pods = await readable(() => cluster.listPods({ node }));
  const selection = 'error' in pods ? undefined : select(pods, node, now, settings.drain);
  if ('error' in pods) errors.push(`pods on ${node}: ${pods.error}`);

  const window = windowFacts(settings.schedule, now, settings.timeZone);
  const pause = await readable(() => cluster.readPause());
  const blockingPods = await blockingPodFacts(cluster, node, settings.blockers.podSelectors);
  const pdbs = await pdbFacts(cluster, node, now, settings.drain);
  if ('error' in pdbs) errors.push(`PDB dry run: ${pdbs.error}`);
  const facts: PolicyFacts = {
    node,
    timeZone: settings.timeZone,
    pause,
    window,
    pdbs,
    ...(blockingPods ? { blockingPods } : {}),
  };
  const verdict = evaluatePolicy(facts, now);
  const fit = request && fitLine(expectedFor(deps, await readBook(deps), request), window, now);
  const at = (d: Date) => describeTime(d, now, settings.timeZone);
  return {
    node,
    at: now.toISOString(),
    ...(info?.kubeletVersion ? { kubeletVersion: info.kubeletVersion } : {}),
    ...(annotations[sinceKey] ? { rebootRequiredSince: annotations[sinceKey] } : {}),
    packages: splitPackages(annotations[packagesKey]),
    ...(info ? { gracefulShutdown: readGracefulShutdown(annotations) } : {}),
    evict: selection?.evict ?? [],
    skipped: selection?.skipped ?? [],
    warnings: selection?.warnings ?? [],
    budgets: 'error' in pdbs ? [] : pdbs.budgets.map((b) => ({ name: b.name, pods: [...b.pods] })),
    blockers: verdict.verdict === 'blocked' ? verdict.reasons.map((r) => r.message) : [],
    window: {
      open: window.open,
      ...(window.closesAt ? { closesAt: at(window.closesAt) } : {}),
      ...(window.nextOpening ? { nextOpening: at(window.nextOpening) } : {}),
      ...(window.freeze ? { freeze: window.freeze.reason } : {}),
      schedule: describeSchedule(settings.schedule),
      ...(fit ? { fit } : {}),
    },
    errors,
  };
}

/** The reporter writes the packages comma- or newline-separated (`/var/run/reboot-required.pkgs`). */
function splitPackages(value: string | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(/[\s,]+/).filter((p) => p.length > 0))];
}

function select(pods: readonly PodInfo[], node: string, now: Date, choice: DrainChoice) {
  const selection = drainSelection(pods, node, now, choice);
  const ref = (p: Pod) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`;
  return {
    evict: selection.evict.map(ref),
    skipped: selection.skip.map((s) => ({ pod: ref(s.pod), reason: s.reason })),
    warnings: selection.warnings,
  };
}

/** The window as a prompt shows it without a full preview (campaigns): "open now", or when next. */
export function nextWindowText(
  settings: Pick<ControlSettings, 'schedule' | 'timeZone'>,
  now: Date,
): string | undefined {
  const window = windowFacts(settings.schedule, now, settings.timeZone);
  if (window.freeze) return `frozen (${window.freeze.reason})`;
  if (window.open) return 'open now';
  return window.nextOpening ? describeTime(window.nextOpening, now, settings.timeZone) : undefined;
}

/** Dry runs per campaign render: a preview is a dry-run eviction per pod, so a large campaign shows the first nodes. */
export const CAMPAIGN_PREVIEWS = 20;

/**
 * The previews of a campaign's nodes still to start (proposed or approved), in node order, at most
 * CAMPAIGN_PREVIEWS of them; a node whose preview fails is left out (the prompt still renders).
 */
export async function previewCampaign(
  preview: (node: string, request: MaintenanceRequest) => Promise<Preview | undefined>,
  requests: readonly MaintenanceRequest[],
): Promise<{ previews: Preview[]; notPreviewed: number }> {
  const waiting = requests
    .filter((r) => r.state === 'proposed' || r.state === 'approved')
    .sort((a, b) => a.node.localeCompare(b.node, 'en', { numeric: true }));
  const previews: Preview[] = [];
  for (const request of waiting.slice(0, CAMPAIGN_PREVIEWS)) {
    const got = await preview(request.node, request).catch(() => undefined);
    if (got) previews.push(got);
  }
  return { previews, notPreviewed: waiting.length - Math.min(waiting.length, CAMPAIGN_PREVIEWS) };
}
