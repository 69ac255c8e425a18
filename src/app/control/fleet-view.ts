/**
 * The fleet as one read of the cluster: each node's current request, the nodes carrying the reboot
 * mark, every slot (free ones included), the pause switch and the window. `kubemaint status`,
 * serve's `/metrics`, the Lambda functions' metrics and the status page all derive from this one
 * value, so they cannot disagree (issue 19: metrics showed no done request while status did, and
 * status counted only the slots whose Lease existed).
 */
import { DateTime } from 'luxon';
import { readGracefulShutdown, type GracefulShutdown } from '../../core/graceful-shutdown.js';
import { ANN_REBOOT_REQUIRED_PACKAGES, slotName } from '../../core/names.js';
import { ACTIVE_STATES, FINAL_STATES, type MaintenanceRequest } from '../../core/request.js';
import type { RequestState } from '../../core/request.js';
import { isOpen } from '../../core/windows.js';
import { windowStatusLine } from '../../core/window-status.js';
import type { Clock, ClusterPort, NodeView, SlotView } from './ports.js';
import type { ControlSettings } from './settings.js';
import type { RetentionPort } from './retention.js';

export interface FleetNode {
  name: string;
  /** Carries the reboot-required mark (the label, or one of `detection.conditionTypes`). */
  marked: boolean;
  /** Ready condition: 'True', 'False' or 'Unknown' ('Unknown' for a node that is gone). */
  ready: string;
  unschedulable: boolean;
  /** A request names it, but the node no longer exists. */
  missing?: boolean;
  /** What the reporter agent says asked for the reboot (an annotation: anyone's text). */
  packages?: string;
  /** The kubelet's graceful-shutdown setting as the agent reported it (ADR 0049); not for a missing node. */
  gracefulShutdown?: GracefulShutdown;
}

export interface PauseView {
  paused: boolean;
  reason?: string;
  by?: string;
  at?: string;
}

export interface FleetView {
  /** When it was read (ISO). */
  at: string;
  cluster: string;
  pause: PauseView;
  window: { open: boolean; line: string };
  /** Each node's request (its active one, else its latest), newest change first. */
  requests: MaintenanceRequest[];
  /**
   * Nodes that are marked or carry a request, by name; every node when `allNodes` was asked (the
   * status page: one row per node).
   */
  nodes: FleetNode[];
  /** `kubemaint-slot-0 … <concurrency-1>`, holder '' when free; another slot of ours only if held. */
  slots: SlotView[];
  /** Every request object, all states and nodes, oldest first: only when `history` was asked. */
  history?: MaintenanceRequest[];
  /**
   * Per node, the summary lines retention kept of the requests it deleted (oldest first): only
   * when `history` was asked and there are some.
   */
  earlier?: Record<string, string[]>;
}

export interface FleetReadOptions {
  /** Read every node (paginated), not only marked ones. @default false */
  allNodes?: boolean;
  /** Read every request object, not only each node's current one. @default false */
  history?: boolean;
}

export type FleetDeps = {
  cluster: Pick<
    ClusterPort,
    'listNodes' | 'listRequestNodes' | 'listRequests' | 'listSlots' | 'readPause'
  >;
  settings: Pick<ControlSettings, 'cluster' | 'detection' | 'lock' | 'schedule' | 'timeZone'>;
  clock: Pick<Clock, 'now'>;
  retention?: Pick<RetentionPort, 'history'>;
};

export async function readFleetView(
  deps: FleetDeps,
  options: FleetReadOptions = {},
): Promise<FleetView> {
  const { cluster, settings } = deps;
  const [withRequest, read, leases, pause, history, earlier] = await Promise.all([
    cluster.listRequestNodes('all'),
    cluster.listNodes(options.allNodes ? undefined : `${settings.detection.rebootLabel}=true`),
    cluster.listSlots(),
    cluster.readPause(),
    options.history ? cluster.listRequests() : undefined,
    options.history && deps.retention ? deps.retention.history() : undefined,
  ]);
  const now = deps.clock.now();
  const byName = new Map<string, NodeView>();
  for (const node of [...read, ...withRequest]) byName.set(node.name, node);
  const requests = withRequest
    .map((n) => n.request)
    .filter((r): r is MaintenanceRequest => r !== undefined)
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return {
    at: now.toISOString(),
    cluster: settings.cluster,
    pause,
    window: {
      open: isOpen(settings.schedule, DateTime.fromJSDate(now, { zone: settings.timeZone })),
      line: windowStatusLine(settings.schedule, now, settings.timeZone),
    },
    requests,
    nodes: [...byName.values()]
      .map((node) => fleetNode(node, settings.detection))
      .sort((a, b) => byNodeName(a.name, b.name)),
    slots: allSlots(leases, settings.lock.concurrency),
    ...(history
      ? { history: [...history].sort((a, b) => a.createdAt.localeCompare(b.createdAt)) }
      : {}),
    ...(earlier && Object.values(earlier).some((lines) => lines.length > 0) ? { earlier } : {}),
  };
}

/** node-2 before node-10, as people count. */
export const byNodeName = (a: string, b: string): number =>
  a.localeCompare(b, 'en', { numeric: true });

function fleetNode(
  node: NodeView,
  detection: Pick<ControlSettings['detection'], 'rebootLabel' | 'conditionTypes'>,
): FleetNode {
  const marked =
    node.labels[detection.rebootLabel] === 'true' ||
    detection.conditionTypes.some((type) => node.conditions[type] === 'True');
  const packages = node.annotations[ANN_REBOOT_REQUIRED_PACKAGES];
  return {
    name: node.name,
    marked,
    ready: node.ready,
    unschedulable: node.unschedulable,
    ...(node.missing ? { missing: true } : {}),
    ...(packages ? { packages } : {}),
    ...(node.missing ? {} : { gracefulShutdown: readGracefulShutdown(node.annotations) }),
  };
}

/**
 * The configured slots, whether or not their Lease exists yet (an executor creates it when it first
 * takes the slot), and any other slot Lease that is held (after `lock.concurrency` was lowered).
 */
export function allSlots(leases: readonly SlotView[], concurrency: number): SlotView[] {
  const byName = new Map(leases.map((s) => [s.name, s]));
  const configured = Array.from({ length: concurrency }, (_, i) => slotName(i)).map(
    (name) => byName.get(name) ?? { name, holder: '' },
  );
  const names = new Set(configured.map((s) => s.name));
  const others = leases.filter((s) => !names.has(s.name) && s.holder !== '');
  return [...configured, ...others];
}

/** Requests per state, every state present (0 when none): the numbers status and metrics show. */
export function stateCounts(view: Pick<FleetView, 'requests'>): Record<RequestState, number> {
  const counts = Object.fromEntries(
    [...ACTIVE_STATES, ...FINAL_STATES].map((s) => [s, 0]),
  ) as Record<RequestState, number>;
  for (const request of view.requests) counts[request.state] += 1;
  return counts;
}

export const heldSlots = (view: Pick<FleetView, 'slots'>): SlotView[] =>
  view.slots.filter((s) => s.holder !== '');
