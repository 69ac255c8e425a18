/** A FleetView as one read of the cluster leaves it, for the metrics, status and page tests. */
import type { FleetNode, FleetView } from '../../src/app/control/fleet-view.js';
import type { MaintenanceRequest, RequestState } from '../../src/core/request.js';

export function fleetView(extra: Partial<FleetView> = {}): FleetView {
  return {
    at: '2026-11-01T02:00:00.000Z',
    cluster: 'test',
    pause: { paused: false },
    window: { open: true, line: 'open now: no windows are configured, so always open' },
    requests: [],
    nodes: [],
    slots: [],
    ...extra,
  };
}

export const fleetNode = (name: string, extra: Partial<FleetNode> = {}): FleetNode => ({
  name,
  marked: false,
  ready: 'True',
  unschedulable: false,
  ...extra,
});

export const fleetRequest = (
  node: string,
  state: RequestState,
  extra: Partial<MaintenanceRequest> = {},
): MaintenanceRequest => ({
  id: `r-${node}`,
  node,
  action: 'reboot',
  state,
  reason: 'reboot-required label',
  requestedBy: 'detector',
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T02:00:00.000Z',
  approvals: [],
  history: [],
  ...extra,
});
