/**
 * What the status page shows, from one FleetView (the read `kubemaint status` and `/metrics` come
 * from): one row per node, each request's phases, the window, its shading and axis. Rows are the
 * nodes the view read plus any a request still names (a node that is gone).
 */
import type { FleetView } from '../../src/app/control/fleet-view.js';
import { byNodeName } from '../../src/app/control/fleet-view.js';
import type { ScannedBound } from '../../src/app/control/tick.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import {
  axisTicks,
  requestPhases,
  timelineWindow,
  type PhaseSpan,
  type TimelineRange,
} from '../../src/core/timeline.js';
import type { Span } from '../../src/core/window-spans.js';
import { scheduleSpans, type Schedule } from '../../src/core/windows.js';

export interface RowRequest {
  request: MaintenanceRequest;
  phases: PhaseSpan[];
}

export interface TimelineRow {
  node: string;
  marked: boolean;
  ready: string;
  unschedulable: boolean;
  missing: boolean;
  packages?: string;
  requests: RowRequest[];
}

export interface TimelineModel {
  view: FleetView;
  /** The apiserver bound of the last skew scan and when it ran (ADR 0050); none before one. */
  bound?: ScannedBound;
  range: TimelineRange;
  zone: string;
  now: number;
  from: number;
  to: number;
  ticks: { at: number; label: string }[];
  /** Open periods (undefined: no windows, always open) and freezes within the range. */
  shading: { open?: Span[]; freezes: (Span & { reason?: string })[] };
  rows: TimelineRow[];
}

export function timelineModel(
  view: FleetView,
  options: {
    schedule: Schedule;
    zone: string;
    range: TimelineRange;
    now: Date;
    bound?: ScannedBound;
  },
): TimelineModel {
  const now = options.now.getTime();
  const requests = (view.history ?? view.requests).map((request) => ({
    request,
    phases: requestPhases(request, now),
  }));
  const { from, to } = timelineWindow(
    options.range,
    requests.flatMap((r) => r.phases),
    now,
  );
  const byNode = new Map<string, RowRequest[]>();
  for (const entry of requests) {
    const list = byNode.get(entry.request.node) ?? [];
    list.push(entry);
    byNode.set(entry.request.node, list);
  }
  const known = new Map(view.nodes.map((n) => [n.name, n]));
  const names = [...new Set([...known.keys(), ...byNode.keys()])].sort(byNodeName);
  return {
    view,
    ...(options.bound ? { bound: options.bound } : {}),
    range: options.range,
    zone: options.zone,
    now,
    from,
    to,
    ticks: axisTicks({ from, to }, options.zone),
    shading: scheduleSpans(options.schedule, from, to),
    rows: names.map((name) => {
      const node = known.get(name);
      return {
        node: name,
        marked: node?.marked ?? false,
        ready: node?.ready ?? 'Unknown',
        unschedulable: node?.unschedulable ?? false,
        missing: node ? node.missing === true : true,
        ...(node?.packages ? { packages: node.packages } : {}),
        requests: byNode.get(name) ?? [],
      };
    }),
  };
}
